/*
 * kaeshi-avrsim: the real ATmega2560 image (build/avr/kaeshi.elf) running in simavr,
 * paced to real time, with its USART0 on a pseudo-terminal and its analog inputs fed by
 * the same sensor model as the host simulator.
 *
 * The runner watches PA0..PA3 (the mux select lines) to know which square each ADC
 * conversion reads, and decodes the WS2812B waveform on PB4 back into LED colours,
 * measuring every high pulse in CPU cycles, so the LED driver's timing is checked on the
 * instructions that really run. The control channel is the host simulator's (see
 * sim/control.c) plus: unplug, replug, power, get leds, get ws2812, get cycles, get adc.
 * It also watches the mux select lines against the ADC's conversion starts, so the settle
 * time the image really gives the muxes is measured rather than assumed.
 */
#define _GNU_SOURCE
#include <avr_adc.h>
#include <avr_eeprom.h>
#include <avr_ioport.h>
#include <avr_uart.h>
#include <errno.h>
#include <poll.h>
#include <sim_avr.h>
#include <sim_elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../sim/control.h"
#include "../sim/pty_link.h"
#include "../sim/sensor_model.h"

#define F_CPU 16000000UL
#define CYCLES_PER_BYTE 640 /* one byte on the wire at 250000 baud */
#define LATCH_CYCLES 800    /* 50 us low latches the strip */
#define PORTA_DATA 0x22     /* PORTA in data space */
#define MCUSR_DATA 0x54     /* MCUSR in data space */
#define MCUSR_WDRF 0x08
#define ADCSRA_DATA 0x7A    /* ADCSRA in data space; ADPS2..0 are its low bits */

static avr_t *avr;
static struct pty_link pty = PTY_LINK_INIT;
static int plugged;

static uint8_t in_queue[4096];
static size_t in_head, in_count;
static int uart_full;
static avr_cycle_count_t next_byte_cycle;
static unsigned long bytes_in, bytes_out;

static uint8_t out_buf[8192];
static size_t out_len;

/* WS2812B decoding */
static avr_cycle_count_t rise_at, fall_at, last_rise;
static int line_high;
static uint8_t strip_rx[64 * 3], strip_shown[64 * 3];
static unsigned bit_count;
static unsigned shows;
static unsigned long t0h_min = ~0UL, t0h_max, t1h_min = ~0UL, t1h_max;
static unsigned long period_min = ~0UL, period_max_in_led;

/* Analog front-end timing as the image really drives it: conversions started, the
 * shortest time from a mux select change to a conversion start (the settle time given),
 * and select changes while a conversion was still sampling (1.5 ADC clocks). */
static unsigned long adc_conversions, adc_sample_violations;
static avr_cycle_count_t select_changed_at, sample_until;
static unsigned long settle_min = ~0UL;
static int adc_since_boot;

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000ULL;
}

/* ---------------------------------------------------------------- pty */

static void close_pty(void)
{
    pty_link_close(&pty);
    in_count = 0;
    out_len = 0;
}

/* ---------------------------------------------------------------- simavr hooks */

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    bytes_out++;
    if (plugged && out_len < sizeof out_buf)
        out_buf[out_len++] = (uint8_t)value;
}

static void uart_xon(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    uart_full = 0;
}

static void uart_xoff(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    uart_full = 1;
}

static void adc_trigger(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    union {
        avr_adc_mux_t mux;
        uint32_t v;
    } e = {.v = value};
    if (e.mux.kind != ADC_MUX_SINGLE || e.mux.src > 3)
        return;
    unsigned long div = 1UL << (avr->data[ADCSRA_DATA] & 7);
    if (div < 2)
        div = 2;
    /* the first conversion after the ADC is enabled samples at 13.5 clocks, not 1.5; the
     * firmware makes it at boot and discards it, so it is no scan reading */
    sample_until = avr->cycle + (adc_since_boot++ ? 3 * div : 27 * div) / 2;
    if (adc_since_boot > 1 && select_changed_at) {
        unsigned long settle = (unsigned long)(avr->cycle - select_changed_at);
        if (settle < settle_min)
            settle_min = settle;
    }
    adc_conversions++;
    int channel = avr->data[PORTA_DATA] & 0x0F;
    uint16_t reading = model_read((int)e.mux.src * 16 + channel);
    uint32_t mv = (uint32_t)((reading * 5000UL + 2500UL) / 1024UL);
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, (int)e.mux.src), mv);
}

static void select_pin(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    if (avr->cycle < sample_until)
        adc_sample_violations++;
    select_changed_at = avr->cycle;
}

static void strip_latch(void)
{
    if (bit_count >= 24) {
        memcpy(strip_shown, strip_rx, sizeof strip_shown);
        shows++;
    }
    bit_count = 0;
}

static void led_pin(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    avr_cycle_count_t now = avr->cycle;
    if (value && !line_high) {
        if (bit_count && now - fall_at > LATCH_CYCLES)
            strip_latch();
        if (bit_count % 24 != 0) {
            unsigned long p = (unsigned long)(now - last_rise);
            if (p < period_min)
                period_min = p;
            if (p > period_max_in_led)
                period_max_in_led = p;
        }
        rise_at = last_rise = now;
        line_high = 1;
    } else if (!value && line_high) {
        unsigned long high = (unsigned long)(now - rise_at);
        int bit = high > 9; /* 6 cycles is a 0, 12 a 1 */
        if (bit) {
            t1h_min = high < t1h_min ? high : t1h_min;
            t1h_max = high > t1h_max ? high : t1h_max;
        } else {
            t0h_min = high < t0h_min ? high : t0h_min;
            t0h_max = high > t0h_max ? high : t0h_max;
        }
        if (bit_count < 64 * 24) {
            uint8_t *byte = &strip_rx[bit_count / 8];
            *byte = (uint8_t)((*byte << 1) | bit);
        }
        bit_count++;
        fall_at = now;
        line_high = 0;
    }
}

static void boot_board(uint32_t board_id, int set_id)
{
    avr_reset(avr);
    if (set_id) {
        uint8_t id[4] = {(uint8_t)board_id, (uint8_t)(board_id >> 8), (uint8_t)(board_id >> 16),
                         (uint8_t)(board_id >> 24)};
        avr_eeprom_desc_t d = {.ee = id, .offset = 0, .size = 4};
        avr_ioctl(avr, AVR_IOCTL_EEPROM_SET, &d);
    }
    bit_count = 0;
    line_high = 0;
    select_changed_at = sample_until = 0;
    adc_since_boot = 0;
}

/* ---------------------------------------------------------------- control */

static int sim_command(int argc, char **argv)
{
    const char *cmd = argv[0];
    if (!strcmp(cmd, "unplug")) {
        if (plugged)
            close_pty();
        plugged = 0;
        reply("ok");
    } else if (!strcmp(cmd, "replug")) {
        if (!plugged) {
            if (pty_link_open(&pty) < 0) {
                reply("err replug: %s", strerror(errno));
                return 1;
            }
            plugged = 1;
            boot_board(0, 0);
        }
        reply("ok %s", pty_link_port(&pty));
    } else if (!strcmp(cmd, "power")) {
        boot_board(0, 0);
        reply("ok");
    } else if (!strcmp(cmd, "watchdog")) {
        /* as if the firmware had hung: the chip restarts with WDRF set in MCUSR */
        boot_board(0, 0);
        avr->data[MCUSR_DATA] |= MCUSR_WDRF;
        reply("ok");
    } else if (!strcmp(cmd, "get") && argc > 1 && !strcmp(argv[1], "leds")) {
        char out[64 * 6 + 1];
        for (int i = 0; i < 64; i++)
            snprintf(out + 6 * i, 7, "%02x%02x%02x", strip_shown[3 * i + 1], strip_shown[3 * i],
                     strip_shown[3 * i + 2]);
        reply("ok %s %u", out, shows);
    } else if (!strcmp(cmd, "get") && argc > 1 && !strcmp(argv[1], "ws2812")) {
        reply("ok t0h=%lu..%lu t1h=%lu..%lu period=%lu..%lu", t0h_min, t0h_max, t1h_min, t1h_max,
              period_min, period_max_in_led);
    } else if (!strcmp(cmd, "get") && argc > 1 && !strcmp(argv[1], "cycles")) {
        reply("ok %llu in=%lu out=%lu queued=%zu full=%d", (unsigned long long)avr->cycle,
              bytes_in, bytes_out, in_count, uart_full);
    } else if (!strcmp(cmd, "get") && argc > 1 && !strcmp(argv[1], "adc")) {
        reply("ok cycle=%llu conversions=%lu settle_min_cycles=%lu sample_violations=%lu",
              (unsigned long long)avr->cycle, adc_conversions,
              settle_min == ~0UL ? 0UL : settle_min, adc_sample_violations);
    } else {
        return 0;
    }
    return 1;
}

static const struct control_sim CONTROL = {
    sim_command,
    "physical-board commands as kaeshi-boardsim; unplug | replug | power | watchdog | "
    "get leds|ws2812|cycles|adc|board|sensor <sq> | quit",
    " on the AVR simulator",
};

/* ---------------------------------------------------------------- main loop */

static void service_io(int timeout_us)
{
    struct timespec ts = {0, (long)timeout_us * 1000L};
    struct pollfd fds[2] = {{0, POLLIN, 0}, {plugged ? pty.master_fd : -1, POLLIN, 0}};
    if (in_count > sizeof in_queue / 2)
        fds[1].fd = -1;
    if (ppoll(fds, 2, &ts, NULL) < 0)
        return;
    if (fds[0].revents & (POLLIN | POLLHUP)) {
        control_read(&CONTROL);
        if (control_stop)
            return;
    }
    if (plugged && (fds[1].revents & POLLIN)) {
        uint8_t buf[1024];
        size_t room = sizeof in_queue - in_count;
        ssize_t n = read(pty.master_fd, buf, room < sizeof buf ? room : sizeof buf);
        for (ssize_t i = 0; i < n; i++)
            in_queue[(in_head + in_count++) % sizeof in_queue] = buf[i];
    }
    if (plugged && out_len) {
        ssize_t w = write(pty.master_fd, out_buf, out_len);
        if (w > 0) {
            memmove(out_buf, out_buf + w, out_len - (size_t)w);
            out_len -= (size_t)w;
        } else {
            out_len = 0; /* nobody reading: the bytes are lost, as on the cable */
        }
    }
}

int main(int argc, char **argv)
{
    const char *elf_path = NULL;
    uint64_t seed = 1;
    long long board_id = -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--elf"))
            elf_path = argv[i + 1];
        else if (!strcmp(argv[i], "--link"))
            pty.link_path = argv[i + 1];
        else if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--board-id"))
            board_id = strtoll(argv[i + 1], NULL, 0);
    }
    if (!elf_path) {
        fprintf(stderr, "usage: kaeshi-avrsim --elf build/avr/kaeshi.elf [--link PATH] "
                        "[--seed N] [--board-id N]\n");
        return 2;
    }
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(elf_path, &fw) != 0) {
        fprintf(stderr, "kaeshi-avrsim: cannot read %s\n", elf_path);
        return 1;
    }
    avr = avr_make_mcu_by_name("atmega2560");
    if (!avr) {
        fprintf(stderr, "kaeshi-avrsim: simavr has no atmega2560 core\n");
        return 1;
    }
    avr_init(avr);
    avr->log = 0;
    avr_load_firmware(avr, &fw);
    avr->frequency = F_CPU;
    avr->vcc = avr->avcc = avr->aref = 5000;

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(uint32_t)AVR_UART_FLAG_STDIO;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            uart_out, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            uart_xon, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            uart_xoff, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_OUT_TRIGGER),
                            adc_trigger, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), IOPORT_IRQ_PIN4),
                            led_pin, NULL);
    for (int pin = IOPORT_IRQ_PIN0; pin <= IOPORT_IRQ_PIN3; pin++)
        avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('A'), pin),
                                select_pin, NULL);

    control_start();
    model_init(seed);
    if (pty_link_open(&pty) < 0) {
        fprintf(stderr, "kaeshi-avrsim: cannot create a pseudo-terminal: %s\n", strerror(errno));
        return 1;
    }
    plugged = 1;
    boot_board((uint32_t)board_id, board_id >= 0);
    reply("ready %s", pty_link_port(&pty));

    uint64_t wall0 = now_us();
    avr_cycle_count_t cycle0 = avr->cycle;
    avr_cycle_count_t next_service = avr->cycle;
    while (!control_stop) {
        if (!plugged) {
            service_io(100000);
            wall0 = now_us();
            cycle0 = avr->cycle;
            continue;
        }
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            fprintf(stderr, "kaeshi-avrsim: the firmware stopped (state %d)\n", state);
            break;
        }
        if (in_count && !uart_full && avr->cycle >= next_byte_cycle) {
            uint8_t b = in_queue[in_head];
            in_head = (in_head + 1) % sizeof in_queue;
            in_count--;
            avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT), b);
            bytes_in++;
            next_byte_cycle = avr->cycle + CYCLES_PER_BYTE;
        }
        if (avr->cycle < next_service)
            continue;
        next_service = avr->cycle + F_CPU / 2000; /* every 0.5 ms of AVR time */
        if (bit_count && !line_high && avr->cycle - fall_at > LATCH_CYCLES)
            strip_latch();
        uint64_t sim_us = (uint64_t)(avr->cycle - cycle0) / (F_CPU / 1000000UL);
        uint64_t wall = now_us() - wall0;
        int ahead = sim_us > wall ? (int)(sim_us - wall) : 0;
        service_io(ahead);
        if (wall > sim_us + 200000) { /* the host is too slow: do not try to catch up */
            wall0 = now_us();
            cycle0 = avr->cycle;
        }
    }
    close_pty();
    return 0;
}
