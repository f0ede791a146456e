#ifndef KAESHI_CONTROL_H
#define KAESHI_CONTROL_H

#include <signal.h>

/* Set by `quit`, SIGINT or SIGTERM, or the end of stdin: the simulator's main loop ends. */
extern volatile sig_atomic_t control_stop;

/* What one simulator adds to the shared control channel. */
struct control_sim {
    /* Handle one of this simulator's own commands; return 0 if `argv[0]` is not one. */
    int (*command)(int argc, char **argv);
    const char *help;    /* the reply to `help` */
    const char *where;   /* "" or e.g. " on the AVR simulator", for the error
                            on an unknown command */
};

void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int parse_square(const char *s);          /* "a1".."h8" -> 0..63, else -1 */

/* Handle a physical-board command (board, square, place, flip, lift, shift, center,
 * sensor, spread, force, get board, get sensor); returns 0 if `argv[0]` is not one. */
int control_model(int argc, char **argv);

/* Stop on SIGINT and SIGTERM, ignore SIGPIPE (a host gone away shows as a failed write),
 * and make stdin non-blocking for control_read. */
void control_start(void);

/* Run each complete line waiting on stdin: the physical-board commands, then the
 * simulator's own, then help and quit; anything else gets an error reply. */
void control_read(const struct control_sim *sim);

#endif
