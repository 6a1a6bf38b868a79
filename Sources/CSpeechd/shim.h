#pragma once
#include <libspeechd.h>
