#!/bin/sh
# man-commands.sh AIFSIM: the man page's "COMMANDS IN DETAIL" section (a help2man include file),
# each command's own help as `aifsim help COMMAND` prints it, escaped for roff.
set -eu
aifsim=$1
echo '[COMMANDS IN DETAIL]'
for c in $(LC_ALL=C "$aifsim" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p'); do
  echo ".SS \"aifsim $c\""
  echo '.nf'
  LC_ALL=C "$aifsim" help "$c" | sed -e "s/\[OPTION?\]/[OPTION...]/" -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
  echo '.fi'
done
