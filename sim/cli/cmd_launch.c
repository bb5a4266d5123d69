/* cmd_launch.c — placeholder while launch is written. */
#include "commands.h"
int cmd_launch(int argc, char **argv) { (void)argc; (void)argv; return 1; }
