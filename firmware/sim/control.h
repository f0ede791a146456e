#ifndef KAESHI_CONTROL_H
#define KAESHI_CONTROL_H

void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int parse_square(const char *s);          /* "a1".."h8" -> 0..63, else -1 */
int control_split(char *line, char **argv, int max);

/* Handle a physical-board command (board, square, place, flip, lift, shift, center,
 * sensor, spread, force, get board, get sensor); returns 0 if `argv[0]` is not one. */
int control_model(int argc, char **argv);

#endif
