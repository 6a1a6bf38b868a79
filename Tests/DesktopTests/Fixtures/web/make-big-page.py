#!/usr/bin/python3
"""Writes big.html: a long page of the kinds of nodes a real page has (headings, paragraphs
with links, lists of links, labelled fields, buttons, table cells), for timing the read of
a web page: `switchscan-bench desktop --app Firefox` with the page open (docs/DESKTOP.md).

    make-big-page.py [BLOCKS]       120 blocks: about 2 000 accessible objects in Firefox
"""
import os
import sys

blocks = int(sys.argv[1]) if len(sys.argv) > 1 else 120
out = ['<!doctype html>', '<html lang="en"><head><meta charset="utf-8"><title>Big page</title></head><body>',
       '<nav aria-label="Site"><a href="#top">Top</a> <a href="#end">End</a></nav>', '<main>']
for i in range(blocks):
    out.append(f'<h2>Block {i}</h2>')
    out.append(f'<p>Text of block {i} with <a href="#a{i}">link {i}a</a> and <a href="#b{i}">link {i}b</a>.</p>')
    out.append(f'<ul><li><a href="#c{i}">item {i}c</a></li><li><a href="#d{i}">item {i}d</a></li></ul>')
    out.append(f'<table><tr><td><a href="#e{i}">cell {i}e</a></td><td>Text {i}</td></tr></table>')
    out.append(f'<label>Field {i} <input type="text"></label> <button type="button">Button {i}</button>')
out += ['</main>', '<p id="end">End</p>', '</body></html>']
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'big.html'), 'w') as f:
    f.write('\n'.join(out) + '\n')
