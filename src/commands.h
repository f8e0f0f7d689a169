/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The tide subcommands; each returns the process exit code (0 ok, 1 run failed, 2 bad usage). */
#ifndef TIDE_COMMANDS_H
#define TIDE_COMMANDS_H
int tide_cmd_info(int argc, char **argv);
int tide_cmd_run(int argc, char **argv);
int tide_cmd_cases(int argc, char **argv);
int tide_cmd_gravity(int argc, char **argv);
int tide_cmd_nbody(int argc, char **argv);
int tide_cmd_probe(int argc, char **argv);
int tide_cmd_glass(int argc, char **argv);
#endif
