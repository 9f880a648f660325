/* commands.h -- declarations of every command in commands.def. */
#ifndef MH_CLI_COMMANDS_H
#define MH_CLI_COMMANDS_H

#define MH_CMD(name, summary) int mh_cmd_##name(int argc, char **argv);
#include "cli/commands.def"
#undef MH_CMD

#endif
