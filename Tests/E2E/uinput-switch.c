/* A switch for the end-to-end tests: a uinput device made through libevdev's uinput API,
 * driven by commands on stdin, one a line:
 *   create | destroy            make or remove the device (its node is printed on stdout)
 *   press CODE | down CODE | up CODE
 *   flood N CODE                N press/release pairs at once (overflows evdev's buffer)
 *   repeat CODE N               N autorepeats (value 2), 30 ms apart, as a held key sends
 *   sleep MS
 *   echo WORD                   prints WORD once the commands before it are done
 * usage: uinput-switch NAME VENDOR_HEX PRODUCT_HEX */
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct libevdev_uinput *ui;
static struct libevdev *proto;

static void emit(unsigned type, unsigned code, int value) {
    if (!ui) { fprintf(stderr, "uinput-switch: no device\n"); exit(2); }
    libevdev_uinput_write_event(ui, type, code, value);
}

static void ms(long n) {
    struct timespec ts = { n / 1000, (n % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: uinput-switch NAME VENDOR PRODUCT\n"); return 2; }
    proto = libevdev_new();
    libevdev_set_name(proto, argv[1]);
    libevdev_set_id_bustype(proto, 0x03);
    libevdev_set_id_vendor(proto, (int)strtol(argv[2], NULL, 16));
    libevdev_set_id_product(proto, (int)strtol(argv[3], NULL, 16));
    libevdev_enable_event_type(proto, EV_KEY);
    libevdev_enable_event_code(proto, EV_KEY, BTN_0, NULL);
    libevdev_enable_event_code(proto, EV_KEY, BTN_1, NULL);
    libevdev_enable_event_code(proto, EV_KEY, KEY_Z, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        char cmd[32] = "", arg[64] = "", arg2[64] = "";
        if (sscanf(line, "%31s %63s %63s", cmd, arg, arg2) < 1) continue;
        if (!strcmp(cmd, "create")) {
            int rc = libevdev_uinput_create_from_device(proto, LIBEVDEV_UINPUT_OPEN_MANAGED, &ui);
            if (rc) { fprintf(stderr, "uinput-switch: create: %s\n", strerror(-rc)); return 1; }
            ms(200);
            printf("%s\n", libevdev_uinput_get_devnode(ui));
        } else if (!strcmp(cmd, "destroy")) {
            libevdev_uinput_destroy(ui);
            ui = NULL;
            printf("destroyed\n");
        } else if (!strcmp(cmd, "echo")) {
            printf("%s\n", arg);
        } else if (!strcmp(cmd, "sleep")) {
            ms(atol(arg));
        } else if (!strcmp(cmd, "press") || !strcmp(cmd, "down") || !strcmp(cmd, "up")) {
            int code = libevdev_event_code_from_name(EV_KEY, arg);
            if (code < 0) { fprintf(stderr, "uinput-switch: unknown code %s\n", arg); return 2; }
            if (strcmp(cmd, "up")) { emit(EV_KEY, code, 1); emit(EV_SYN, SYN_REPORT, 0); }
            if (!strcmp(cmd, "press")) ms(40);
            if (strcmp(cmd, "down")) { emit(EV_KEY, code, 0); emit(EV_SYN, SYN_REPORT, 0); }
        } else if (!strcmp(cmd, "repeat")) {
            int code = libevdev_event_code_from_name(EV_KEY, arg);
            if (code < 0) { fprintf(stderr, "uinput-switch: unknown code %s\n", arg); return 2; }
            for (long k = 0; k < atol(arg2); k++) { emit(EV_KEY, code, 2); emit(EV_SYN, SYN_REPORT, 0); ms(30); }
        } else if (!strcmp(cmd, "flood")) {
            int code = libevdev_event_code_from_name(EV_KEY, arg2);
            for (long k = 0; k < atol(arg); k++) {
                emit(EV_KEY, code, 1); emit(EV_SYN, SYN_REPORT, 0);
                emit(EV_KEY, code, 0); emit(EV_SYN, SYN_REPORT, 0);
            }
        } else {
            fprintf(stderr, "uinput-switch: unknown command %s\n", cmd);
            return 2;
        }
    }
    if (ui) libevdev_uinput_destroy(ui);
    libevdev_free(proto);
    return 0;
}
