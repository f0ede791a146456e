/*
 * kaeshi-boardsim: the sensor-board firmware running on the host.
 *
 * The firmware speaks the real protocol on a pseudo-terminal, exactly as the board does
 * on its USB serial port. The "physical" board (discs, sensor offsets and noise, the
 * cable, the watchdog) is driven by line commands on stdin; each gets one reply line on
 * stdout, "ok ..." or "err ...". The first line printed is "ready <port>".
 *
 * Unplugging closes the pseudo-terminal and removes the --link symlink, as a pulled USB
 * cable removes /dev/ttyACM0: the host's reads fail and its reopen fails until replug.
 * Replugging makes a new pseudo-terminal behind the same link and boots the firmware
 * afresh (a USB-powered board loses power with its cable). See `help` for the commands.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../src/app.h"
#include "../src/config.h"
#include "../src/protocol_gen.h"
#include "control.h"
#include "hal_sim.h"
#include "pty_link.h"
#include "sensor_model.h"

static struct pty_link pty = PTY_LINK_INIT;
static int plugged;
/* One main-loop pass of the ATmega2560 image (one scan step: four 26 us conversions, plus
 * the loop's other work and its share of classification, frames and LED refresh), as
 * measured in simavr by benchmarks/bench_firmware.py: 16 passes make a 2.9 ms scan. */
static uint32_t step_us = 183;
/* The board's serial line carries 10 bits per byte at 250000 baud: a 43-byte BOARD frame
 * takes 1.7 ms to leave. Bytes wait in the firmware's transmit buffer meanwhile, as on
 * the board. 0 = as fast as the pty takes them. */
static uint32_t baud = KP_BAUD;
static uint64_t line_free_at; /* the line has sent every byte handed to the pty by then */
static int tx_backlog;        /* bytes were still waiting after the last flush */

static void boot(uint8_t by_watchdog)
{
    sim_hal_set_boot_reason(by_watchdog);
    app_init();
    tx_backlog = 0; /* the transmit buffer starts empty */
}

static void flush_tx(void)
{
    const uint8_t *data;
    size_t n;
    uint64_t byte_us = baud ? 10000000ULL / baud : 0;
    uint64_t now = sim_monotonic_us();
    /* bytes left over last time have been going out back to back since the line was free;
     * bytes queued since then started now at the earliest */
    uint64_t start = line_free_at;
    if (!tx_backlog && start < now)
        start = now;
    while ((n = sim_hal_tx_pending(&data)) > 0) {
        if (baud) {
            /* hand over the bytes the line has sent by now (the one on the wire included) */
            uint64_t sent = now + byte_us > start ? (now + byte_us - start) / byte_us : 0;
            if (sent == 0)
                break;
            if (n > sent)
                n = (size_t)sent;
        }
        ssize_t w = write(pty.master_fd, data, n);
        if (w <= 0)
            break; /* the host is not reading: the firmware's buffer fills and it drops frames */
        sim_hal_tx_consume((size_t)w);
        start += (uint64_t)w * byte_us;
    }
    line_free_at = start;
    tx_backlog = sim_hal_tx_pending(&data) > 0;
}

/* Take from the pty only what the firmware's receive buffer can hold; the rest waits in
 * the pty. The real link has no such flow control, but it delivers only 25 bytes per ms
 * while the firmware takes up to 64 per pass, so its buffer does not overflow either. */
static void drain_rx(void)
{
    uint8_t buf[UART_RX_BUF];
    size_t room = sim_hal_rx_free();
    if (room == 0)
        return;
    ssize_t n = read(pty.master_fd, buf, room);
    if (n > 0)
        sim_hal_rx_push(buf, (size_t)n);
}

/* ---------------------------------------------------------------- control channel */

static const char HELP[] =
    "board <64 chars -XOxo?> | square <sq> <char> | place <sq> X|O | flip <sq> | "
    "lift <sq> | shift <sq> | center <sq> | sensor <sq> <offset> <noise> [swing] | "
    "spread <seed> <offset_sd> <noise> [swing_sd] | force <sq> <value>|off | "
    "unplug | replug | watchdog | power | eeprom_fail 0|1 | get board|state|leds|sensor <sq>|"
    "port|eeprom <addr> <n> | quit";

static int sim_command(int argc, char **argv)
{
    const char *cmd = argv[0];
    if (!strcmp(cmd, "unplug")) {
        if (plugged) {
            pty_link_close(&pty);
            plugged = 0;
        }
        reply("ok");
    } else if (!strcmp(cmd, "replug")) {
        if (!plugged) {
            if (pty_link_open(&pty) < 0) {
                reply("err replug: cannot create a pseudo-terminal: %s", strerror(errno));
                return 1;
            }
            plugged = 1;
            boot(0);
        }
        reply("ok %s", pty_link_port(&pty));
    } else if (!strcmp(cmd, "watchdog")) {
        if (plugged)
            boot(1);
        reply("ok");
    } else if (!strcmp(cmd, "power")) {
        if (plugged)
            boot(0);
        reply("ok");
    } else if (!strcmp(cmd, "eeprom_fail")) {
        sim_hal_eeprom_fail(argc > 1 && atoi(argv[1]) != 0);
        reply("ok");
    } else if (!strcmp(cmd, "get") && argc > 1) {
        char out[64 * 6 + 1];
        if (!strcmp(argv[1], "state")) {
            for (int i = 0; i < 64; i++)
                out[i] = KP_STATE_CHARS[app_board_state((uint8_t)i)];
            out[64] = 0;
            reply("ok %s %d", out, app_flags());
        } else if (!strcmp(argv[1], "leds")) {
            const uint8_t *g = sim_hal_leds();
            for (int i = 0; i < 64; i++) /* shown as r g b */
                snprintf(out + 6 * i, 7, "%02x%02x%02x", g[3 * i + 1], g[3 * i], g[3 * i + 2]);
            reply("ok %s %u", out, sim_hal_led_shows());
        } else if (!strcmp(argv[1], "port")) {
            reply("ok %s %s", plugged ? pty_link_port(&pty) : "-", plugged ? pty.name : "-");
        } else if (!strcmp(argv[1], "eeprom") && argc > 3) {
            long addr = strtol(argv[2], NULL, 0), n = strtol(argv[3], NULL, 0);
            if (addr < 0 || n < 1 || n > 64 || addr + n > EE_SIZE) {
                reply("err get eeprom: range outside 0..%d (at most 64 bytes)", EE_SIZE - 1);
                return 1;
            }
            for (long i = 0; i < n; i++)
                snprintf(out + 2 * i, 3, "%02x", sim_hal_eeprom_peek((uint16_t)(addr + i)));
            reply("ok %s", out);
        } else {
            reply("err get: expected board, state, leds, sensor <sq>, port or eeprom <addr> <n>");
        }
    } else {
        return 0;
    }
    return 1;
}

static const struct control_sim CONTROL = {sim_command, HELP, ""};

static void usage(void)
{
    fprintf(stderr,
            "usage: kaeshi-boardsim [--link PATH] [--seed N] [--board-id N] [--eeprom FILE]\n"
            "                       [--eeprom-write-us N] [--step-us N] [--baud N (0: unlimited)]\n");
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    long long board_id = -1;
    const char *eeprom_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            usage();
            return 2;
        }
        if (!strcmp(a, "--link"))
            pty.link_path = v;
        else if (!strcmp(a, "--seed"))
            seed = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--board-id"))
            board_id = strtoll(v, NULL, 0);
        else if (!strcmp(a, "--eeprom"))
            eeprom_path = v;
        else if (!strcmp(a, "--eeprom-write-us"))
            sim_hal_eeprom_set_write_us((uint32_t)strtoul(v, NULL, 0));
        else if (!strcmp(a, "--step-us"))
            step_us = (uint32_t)strtoul(v, NULL, 0);
        else if (!strcmp(a, "--baud"))
            baud = (uint32_t)strtoul(v, NULL, 0);
        else {
            usage();
            return 2;
        }
        i++;
    }
    control_start();
    model_init(seed);
    if (eeprom_path && sim_hal_eeprom_open(eeprom_path) < 0) {
        fprintf(stderr, "kaeshi-boardsim: cannot open EEPROM file %s: %s\n", eeprom_path,
                strerror(errno));
        return 1;
    }
    if (board_id >= 0)
        for (int b = 0; b < 4; b++)
            sim_hal_eeprom_poke((uint16_t)(EE_BOARD_ID + b), (uint8_t)(board_id >> (8 * b)));
    if (pty_link_open(&pty) < 0) {
        fprintf(stderr, "kaeshi-boardsim: cannot create a pseudo-terminal: %s\n", strerror(errno));
        return 1;
    }
    plugged = 1;
    boot(0);
    reply("ready %s", pty_link_port(&pty));

    uint64_t next_step = sim_monotonic_us();
    while (!control_stop) {
        uint64_t now = sim_monotonic_us();
        uint64_t wait = next_step > now ? next_step - now : 0;
        if (!plugged)
            wait = 100000; /* no power: only the control channel is alive */
        struct timespec ts = {(time_t)(wait / 1000000ULL), (long)(wait % 1000000ULL) * 1000L};
        int rx_fd = plugged && sim_hal_rx_free() > 0 ? pty.master_fd : -1;
        struct pollfd fds[2] = {{0, POLLIN, 0}, {rx_fd, POLLIN, 0}};
        if (ppoll(fds, 2, &ts, NULL) < 0 && errno != EINTR)
            break;
        if (fds[0].revents & (POLLIN | POLLHUP))
            control_read(&CONTROL);
        if (control_stop || !plugged)
            continue;
        if (fds[1].revents & POLLIN)
            drain_rx();
        /* Run the steps that are due. When the process was not scheduled for a while,
         * catch up with a bounded burst, so a busy machine delays the scan rather than
         * slowing it down for good. */
        now = sim_monotonic_us();
        for (int burst = 0; burst < 32 && now >= next_step; burst++) {
            app_poll();
            if (sim_hal_reset_requested()) {
                flush_tx();
                boot(1);
            }
            flush_tx();
            if (fds[1].fd >= 0)
                drain_rx();
            next_step += step_us;
        }
        if (next_step < now)
            next_step = now + step_us;
        flush_tx();
    }
    pty_link_close(&pty);
    return 0;
}
