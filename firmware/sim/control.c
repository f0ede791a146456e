/*
 * Control channel of the simulators: one command per stdin line, one reply line on stdout
 * ("ok ..." or "err ..."). The host simulator and the simavr runner share the channel
 * itself, the physical-board commands (discs and sensors), help, quit and the signals
 * that stop them; each adds its own commands (cable, power, what it can report).
 */
#define _GNU_SOURCE
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sensor_model.h"

volatile sig_atomic_t control_stop;

void reply(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

int parse_square(const char *s)
{
    if (!s || strlen(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8')
        return -1;
    return (s[1] - '1') * 8 + (s[0] - 'a');
}

int control_model(int argc, char **argv)
{
    const char *cmd = argv[0];
    int sq = argc > 1 ? parse_square(argv[1]) : -1;
    int needs_square = !strcmp(cmd, "square") || !strcmp(cmd, "place") || !strcmp(cmd, "flip") ||
                       !strcmp(cmd, "lift") || !strcmp(cmd, "shift") || !strcmp(cmd, "center") ||
                       !strcmp(cmd, "sensor") || !strcmp(cmd, "force");
    if (needs_square && sq < 0) {
        reply("err %s: expected a square a1..h8, got '%s'", cmd, argc > 1 ? argv[1] : "");
        return 1;
    }
    if (!strcmp(cmd, "board")) {
        if (argc != 2 || strlen(argv[1]) != 64) {
            reply("err board: expected 64 characters of -XOxo?");
            return 1;
        }
        for (int i = 0; i < 64; i++)
            if (!strchr("-XOxo?", argv[1][i])) {
                reply("err board: bad character '%c' at index %d", argv[1][i], i);
                return 1;
            }
        for (int i = 0; i < 64; i++)
            model_set_square(i, argv[1][i]);
        reply("ok");
    } else if (!strcmp(cmd, "square") || !strcmp(cmd, "place")) {
        char c = argc > 2 ? argv[2][0] : 0;
        if (argc > 2 && (!strcmp(argv[2], "black") || !strcmp(argv[2], "white")))
            c = argv[2][0] == 'b' ? 'X' : 'O';
        else if (argc != 3 || strlen(argv[2]) != 1)
            c = 0;
        if (!c || model_set_square(sq, c) < 0)
            reply("err %s: expected one of -XOxo? after the square", cmd);
        else
            reply("ok");
    } else if (!strcmp(cmd, "flip")) {
        const char *from = "XOxo", *to = "OXox";
        const char *p = strchr(from, model_square(sq));
        if (!p || !*p)
            reply("err flip: no disc on %s", argv[1]);
        else {
            model_set_square(sq, to[p - from]);
            reply("ok");
        }
    } else if (!strcmp(cmd, "lift")) {
        model_set_square(sq, '-');
        reply("ok");
    } else if (!strcmp(cmd, "shift") || !strcmp(cmd, "center")) {
        const char *from = !strcmp(cmd, "shift") ? "XO" : "xo";
        const char *to = !strcmp(cmd, "shift") ? "xo" : "XO";
        const char *p = strchr(from, model_square(sq));
        if (!p || !*p)
            reply("err %s: no disc to move on %s", cmd, argv[1]);
        else {
            model_set_square(sq, to[p - from]);
            reply("ok");
        }
    } else if (!strcmp(cmd, "sensor")) {
        if (argc < 4) {
            reply("err sensor: expected <sq> <offset> <noise> [swing]");
            return 1;
        }
        double off, nz, sw;
        model_get_sensor(sq, &off, &nz, &sw);
        off = atof(argv[2]);
        nz = atof(argv[3]);
        if (argc > 4)
            sw = atof(argv[4]);
        if (nz < 0 || sw < 0) {
            reply("err sensor: noise and swing must not be negative");
            return 1;
        }
        model_set_sensor(sq, off, nz, sw);
        reply("ok");
    } else if (!strcmp(cmd, "spread")) {
        if (argc < 4) {
            reply("err spread: expected <seed> <offset_sd> <noise> [swing_sd]");
            return 1;
        }
        model_spread(strtoull(argv[1], NULL, 0), atof(argv[2]), atof(argv[3]),
                     argc > 4 ? atof(argv[4]) : 0.0);
        reply("ok");
    } else if (!strcmp(cmd, "force")) {
        if (argc != 3) {
            reply("err force: expected <sq> <value 0..1023>|off");
            return 1;
        }
        int v = !strcmp(argv[2], "off") ? -1 : atoi(argv[2]);
        if (v > 1023) {
            reply("err force: value must be 0..1023");
            return 1;
        }
        model_force(sq, v);
        reply("ok");
    } else if (!strcmp(cmd, "get") && argc > 1 && !strcmp(argv[1], "board")) {
        char out[65];
        for (int i = 0; i < 64; i++)
            out[i] = model_square(i);
        out[64] = 0;
        reply("ok %s", out);
    } else if (!strcmp(cmd, "get") && argc > 2 && !strcmp(argv[1], "sensor") &&
               parse_square(argv[2]) >= 0) {
        double off, nz, sw;
        model_get_sensor(parse_square(argv[2]), &off, &nz, &sw);
        reply("ok %.3f %.3f %.3f", off, nz, sw);
    } else {
        return 0;
    }
    return 1;
}

static int split(char *line, char **argv, int max)
{
    int argc = 0;
    for (char *tok = strtok(line, " \t\r\n"); tok && argc < max; tok = strtok(NULL, " \t\r\n"))
        argv[argc++] = tok;
    return argc;
}

static void run_line(char *line, const struct control_sim *sim)
{
    char *argv[8];
    int argc = split(line, argv, 8);
    if (argc == 0 || control_model(argc, argv) || sim->command(argc, argv))
        return;
    if (!strcmp(argv[0], "help")) {
        reply("ok %s", sim->help);
    } else if (!strcmp(argv[0], "quit")) {
        reply("ok");
        control_stop = 1;
    } else {
        reply("err unknown command '%s'%s (try help)", argv[0], sim->where);
    }
}

void control_read(const struct control_sim *sim)
{
    static char line[1024];
    static size_t line_len;
    char buf[512];
    ssize_t n = read(0, buf, sizeof buf);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        control_stop = 1; /* the controlling process went away */
        return;
    }
    for (ssize_t i = 0; i < n; i++) {
        if (buf[i] == '\n') {
            line[line_len] = 0;
            run_line(line, sim);
            line_len = 0;
        } else if (line_len < sizeof line - 1) {
            line[line_len++] = buf[i];
        }
    }
}

static void on_signal(int sig)
{
    (void)sig;
    control_stop = 1;
}

void control_start(void)
{
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);
    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
}
