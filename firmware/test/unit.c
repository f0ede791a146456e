/*
 * Host unit tests of the firmware logic, run against the fake HAL (hal_fake.c).
 * Frames the firmware sends are decoded here with an independent bit-by-bit CRC, so a
 * mistake in crc16.c cannot hide itself.
 */
#include <stdio.h>
#include <string.h>

#include "../src/app.h"
#include "../src/calib.h"
#include "../src/classify.h"
#include "../src/commands.h"
#include "../src/crc16.h"
#include "../src/debounce.h"
#include "../src/hal.h"
#include "../src/leds.h"
#include "../src/protocol.h"
#include "../src/scan.h"
#include "hal_fake.h"

static int checks, failures, tests_failed;

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        checks++;                                                                              \
        if (!(cond)) {                                                                         \
            failures++;                                                                        \
            printf("  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                          \
        }                                                                                      \
    } while (0)

#define CHECK_EQ(a, b)                                                                         \
    do {                                                                                       \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                  \
        checks++;                                                                              \
        if (va_ != vb_) {                                                                      \
            failures++;                                                                        \
            printf("  FAIL %s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, \
                   va_, #b, vb_);                                                              \
        }                                                                                      \
    } while (0)

/* ------------------------------------------------------------------ helpers */

static uint16_t ref_crc(const uint8_t *p, uint32_t n)
{
    uint16_t crc = 0xFFFF;
    for (uint32_t i = 0; i < n; i++) {
        crc ^= (uint16_t)(p[i] << 8);
        for (int b = 0; b < 8; b++)
            crc = (uint16_t)((crc & 0x8000) ? ((crc << 1) ^ 0x1021) : (crc << 1));
    }
    return crc;
}

static uint32_t build_frame(uint8_t *out, uint8_t seq, uint8_t type, const uint8_t *p, uint8_t len)
{
    out[0] = 0xA5;
    out[1] = len;
    out[2] = seq;
    out[3] = type;
    if (len)
        memcpy(out + 4, p, len);
    uint16_t crc = ref_crc(out + 1, 3u + len);
    out[4 + len] = (uint8_t)crc;
    out[5 + len] = (uint8_t)(crc >> 8);
    return 6u + len;
}

static void send_cmd(uint8_t seq, uint8_t type, const uint8_t *p, uint8_t len)
{
    uint8_t f[256];
    fake_rx(f, build_frame(f, seq, type, p, len));
}

typedef struct {
    uint8_t seq, type, len;
    uint8_t payload[240];
} rx_frame_t;

static rx_frame_t frames[4096];
static int nframes;
static uint32_t tx_parsed;

/* Decode every complete frame the firmware sent since the last call. */
static int collect(void)
{
    int before = nframes;
    uint32_t i = tx_parsed;
    while (i + 6 <= fake_tx_len) {
        if (fake_tx[i] != 0xA5) {
            printf("  FAIL stray byte 0x%02X in output at %u\n", fake_tx[i], i);
            failures++;
            i++;
            continue;
        }
        uint8_t len = fake_tx[i + 1];
        if (i + 6u + len > fake_tx_len)
            break;
        uint16_t crc = ref_crc(fake_tx + i + 1, 3u + len);
        uint16_t got = (uint16_t)(fake_tx[i + 4 + len] | (fake_tx[i + 5 + len] << 8));
        if (crc != got) {
            printf("  FAIL bad CRC in output frame at %u\n", i);
            failures++;
        }
        if (nframes < 4096) {
            rx_frame_t *f = &frames[nframes++];
            f->len = len;
            f->seq = fake_tx[i + 2];
            f->type = fake_tx[i + 3];
            memcpy(f->payload, fake_tx + i + 4, len);
        }
        i += 6u + len;
    }
    tx_parsed = i;
    return nframes - before;
}

static void clear_frames(void)
{
    collect();
    nframes = 0;
}

static int count_type(uint8_t type)
{
    int n = 0;
    for (int i = 0; i < nframes; i++)
        n += frames[i].type == type;
    return n;
}

static const rx_frame_t *find_type(uint8_t type, int nth)
{
    for (int i = 0; i < nframes; i++)
        if (frames[i].type == type && nth-- == 0)
            return &frames[i];
    return NULL;
}

static const rx_frame_t *last_type(uint8_t type)
{
    for (int i = nframes - 1; i >= 0; i--)
        if (frames[i].type == type)
            return &frames[i];
    return NULL;
}

static int acks_for(uint8_t seq, uint8_t type, int *status)
{
    int n = 0;
    for (int i = 0; i < nframes; i++)
        if (frames[i].type == KP_MSG_ACK && frames[i].payload[0] == seq &&
            frames[i].payload[1] == type) {
            n++;
            if (status)
                *status = frames[i].payload[2];
        }
    return n;
}

/* One main-loop pass on the ATmega2560 (measured in simavr by avr/bench_main.c): the
 * scan step's four conversions, which the fake ADC clocks itself, plus the rest. */
#define PASS_US 183
#define PASS_OTHER_US (PASS_US - 4 * FAKE_ADC_CONVERSION_US)

static void pass(void)
{
    app_poll();
    fake_us += PASS_OTHER_US;
}

/* Run the main loop for `ms` of fake time, pass by pass like the real board. */
static void run_ms(uint32_t ms)
{
    uint32_t end = fake_us + ms * 1000u;
    while ((int32_t)(fake_us - end) < 0) {
        app_poll();
        if (fake_reset_requested)
            break;
        fake_us += PASS_OTHER_US;
    }
    collect();
}

static void boot(void)
{
    fake_tx_len = 0;
    tx_parsed = 0;
    nframes = 0;
    app_init();
}

static void fresh(void)
{
    fake_reset_all();
    boot();
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static uint8_t board_square(const rx_frame_t *f, int sq)
{
    return (uint8_t)((f->payload[5 + sq / 2] >> (4 * (sq % 2))) & 0x0F);
}

static const cal_record_t CAL = {450, 570, 300, 720, 8};

/* ------------------------------------------------------------------ tests */

static void test_crc_check_value(void)
{
    const uint8_t s[] = "123456789";
    CHECK_EQ(crc16(s, 9), KP_CRC_CHECK);
    CHECK_EQ(crc16(s, 9), 0x29B1);
    uint8_t buf[200];
    for (int i = 0; i < 200; i++)
        buf[i] = (uint8_t)(i * 37 + 11);
    CHECK_EQ(crc16(buf, 200), ref_crc(buf, 200));
}

static void test_classify_bands(void)
{
    CHECK_EQ(classify_raw(&CAL, 100), KP_STATE_BLACK);
    CHECK_EQ(classify_raw(&CAL, 300), KP_STATE_BLACK);
    CHECK_EQ(classify_raw(&CAL, 301), KP_STATE_BLACK_SHIFTED);
    CHECK_EQ(classify_raw(&CAL, 449), KP_STATE_BLACK_SHIFTED);
    CHECK_EQ(classify_raw(&CAL, 450), KP_STATE_EMPTY);
    CHECK_EQ(classify_raw(&CAL, 570), KP_STATE_EMPTY);
    CHECK_EQ(classify_raw(&CAL, 571), KP_STATE_WHITE_SHIFTED);
    CHECK_EQ(classify_raw(&CAL, 719), KP_STATE_WHITE_SHIFTED);
    CHECK_EQ(classify_raw(&CAL, 720), KP_STATE_WHITE);
    CHECK_EQ(classify_raw(&CAL, 1000), KP_STATE_WHITE);
    CHECK_EQ(classify_raw(&CAL, 0), KP_STATE_UNKNOWN);
    CHECK_EQ(classify_raw(&CAL, 1023), KP_STATE_UNKNOWN);
    CHECK(cal_record_valid(&CAL));
    cal_record_t bad = CAL;
    bad.black_th = 450;
    CHECK(!cal_record_valid(&bad));
    bad = CAL;
    bad.white_th = 1024;
    CHECK(!cal_record_valid(&bad));
    bad = CAL;
    bad.empty_hi = 449;
    CHECK(!cal_record_valid(&bad));
}

static void test_classify_hysteresis(void)
{
    /* leaving EMPTY downwards needs v < empty_lo - 8 */
    CHECK_EQ(classify(&CAL, 445, KP_STATE_EMPTY), KP_STATE_EMPTY);
    CHECK_EQ(classify(&CAL, 442, KP_STATE_EMPTY), KP_STATE_EMPTY);
    CHECK_EQ(classify(&CAL, 441, KP_STATE_EMPTY), KP_STATE_BLACK_SHIFTED);
    /* and coming back needs v >= empty_lo + 8 */
    CHECK_EQ(classify(&CAL, 455, KP_STATE_BLACK_SHIFTED), KP_STATE_BLACK_SHIFTED);
    CHECK_EQ(classify(&CAL, 457, KP_STATE_BLACK_SHIFTED), KP_STATE_BLACK_SHIFTED);
    CHECK_EQ(classify(&CAL, 458, KP_STATE_BLACK_SHIFTED), KP_STATE_EMPTY);
    /* black <-> black shifted around black_th */
    CHECK_EQ(classify(&CAL, 305, KP_STATE_BLACK), KP_STATE_BLACK);
    CHECK_EQ(classify(&CAL, 309, KP_STATE_BLACK), KP_STATE_BLACK_SHIFTED);
    CHECK_EQ(classify(&CAL, 295, KP_STATE_BLACK_SHIFTED), KP_STATE_BLACK_SHIFTED);
    CHECK_EQ(classify(&CAL, 292, KP_STATE_BLACK_SHIFTED), KP_STATE_BLACK);
    /* white side */
    CHECK_EQ(classify(&CAL, 715, KP_STATE_WHITE), KP_STATE_WHITE);
    CHECK_EQ(classify(&CAL, 711, KP_STATE_WHITE), KP_STATE_WHITE_SHIFTED);
    CHECK_EQ(classify(&CAL, 575, KP_STATE_EMPTY), KP_STATE_EMPTY);
    CHECK_EQ(classify(&CAL, 579, KP_STATE_EMPTY), KP_STATE_WHITE_SHIFTED);
    /* a big jump goes straight to the new class */
    CHECK_EQ(classify(&CAL, 100, KP_STATE_EMPTY), KP_STATE_BLACK);
    CHECK_EQ(classify(&CAL, 900, KP_STATE_BLACK), KP_STATE_WHITE);
    /* a fault is reported at once, and nothing is sticky from UNKNOWN */
    CHECK_EQ(classify(&CAL, 2, KP_STATE_EMPTY), KP_STATE_UNKNOWN);
    CHECK_EQ(classify(&CAL, 449, KP_STATE_UNKNOWN), KP_STATE_BLACK_SHIFTED);
    /* hysteresis 0: the plain bands */
    cal_record_t h0 = CAL;
    h0.hysteresis = 0;
    CHECK_EQ(classify(&h0, 449, KP_STATE_EMPTY), KP_STATE_BLACK_SHIFTED);
}

static void test_debounce_needs_three_scans(void)
{
    debounce_init();
    CHECK_EQ(debounce_state(5), KP_STATE_UNKNOWN);
    CHECK_EQ(debounce_update(5, KP_STATE_BLACK), 0);
    CHECK_EQ(debounce_update(5, KP_STATE_BLACK), 0);
    CHECK_EQ(debounce_state(5), KP_STATE_UNKNOWN);
    CHECK_EQ(debounce_update(5, KP_STATE_BLACK), 1);
    CHECK_EQ(debounce_state(5), KP_STATE_BLACK);
    /* two scans of white then one black: the run is broken, no change */
    debounce_update(5, KP_STATE_WHITE);
    debounce_update(5, KP_STATE_WHITE);
    debounce_update(5, KP_STATE_BLACK);
    CHECK_EQ(debounce_state(5), KP_STATE_BLACK);
    /* alternating candidates never settle */
    for (int i = 0; i < 10; i++)
        debounce_update(5, i % 2 ? KP_STATE_WHITE : KP_STATE_EMPTY);
    CHECK_EQ(debounce_state(5), KP_STATE_BLACK);
    debounce_update(5, KP_STATE_EMPTY);
    debounce_update(5, KP_STATE_WHITE);
    debounce_update(5, KP_STATE_WHITE);
    CHECK_EQ(debounce_update(5, KP_STATE_WHITE), 1);
    CHECK_EQ(debounce_state(5), KP_STATE_WHITE);
    CHECK_EQ(debounce_state(6), KP_STATE_UNKNOWN); /* squares are independent */
}

static void test_scan_sequencing(void)
{
    fake_reset_all();
    for (int i = 0; i < 64; i++)
        fake_adc[i] = (uint16_t)(100 + 7 * i);
    scan_init();
    CHECK_EQ(fake_selected, 0);
    CHECK_EQ(fake_selects, 1);
    int completed = 0;
    for (int step = 0; step < 15; step++) {
        completed += scan_step();
        /* the step converted channel `step` and left the next one selected */
        CHECK_EQ(fake_selected, step + 1);
        CHECK_EQ(fake_conversions, 4 * (step + 1));
    }
    CHECK_EQ(completed, 0);
    CHECK_EQ(scan_count(), 0);
    CHECK_EQ(scan_step(), 1);
    CHECK_EQ(scan_count(), 1);
    CHECK_EQ(fake_selected, 0); /* ready for the next scan */
    CHECK_EQ(fake_selects, 17);
    const uint16_t *r = scan_readings();
    int same = 1, once = 1;
    for (int i = 0; i < 64; i++) {
        same &= r[i] == 100 + 7 * i;
        once &= fake_converted[i] == 1;
    }
    CHECK(same);
    CHECK(once); /* every square converted exactly once, on its own channel */
    CHECK_EQ(scan_square(2, 5), 37);
    /* the readings of a finished scan do not change while the next one runs */
    fake_adc[0] = 999;
    scan_step();
    CHECK_EQ(scan_readings()[0], 100);
}

/* The timing the analog front end needs, on the fake clock: no select change while an
 * input is being sampled, every conversion at least MUX_SETTLE_US after the select lines
 * last moved, and a scan that costs its 64 conversions and nothing more, because each
 * channel settles while the previous channel's last conversion runs. */
static void test_scan_timing(void)
{
    fake_reset_all();
    scan_init();
    CHECK(fake_us >= MUX_SETTLE_US); /* channel 0 settles before the first conversion */
    uint32_t t0 = fake_us;
    scan_step();
    CHECK_EQ(fake_min_settle_us, MUX_SETTLE_US); /* the wait in scan_init */
    fake_min_settle_us = UINT32_MAX;             /* from here on, the overlapped settles */
    while (!scan_step()) {
    }
    for (int scan = 0; scan < 2; scan++)
        while (!scan_step()) {
        }
    uint32_t per_scan = (fake_us - t0) / 3;
    CHECK_EQ(fake_conversions, 3 * 64);
    CHECK_EQ(fake_sample_violations, 0);
    CHECK_EQ(fake_overlapping_starts, 0);
    CHECK(fake_min_settle_us >= MUX_SETTLE_US);
    CHECK_EQ(fake_min_settle_us, FAKE_ADC_CONVERSION_US - ADC_HOLD_US);
    CHECK_EQ(per_scan, 64 * FAKE_ADC_CONVERSION_US);
    CHECK_EQ(fake_delay_total_us, MUX_SETTLE_US + 3 * 16 * ADC_HOLD_US);

    /* the fake does catch a front end driven wrongly: a select during the sample... */
    fake_reset_all();
    hal_mux_select(0);
    fake_us += MUX_SETTLE_US;
    hal_adc_start(0);
    hal_mux_select(1);
    hal_adc_finish();
    CHECK_EQ(fake_sample_violations, 1);
    /* ...and a conversion started right after a select, with no settle time */
    hal_adc_start(1);
    hal_adc_finish();
    CHECK_EQ(fake_min_settle_us, MUX_SETTLE_US);
    CHECK_EQ(fake_overlapping_starts, 0);
    hal_mux_select(2);
    hal_adc_start(0);
    hal_adc_finish();
    CHECK_EQ(fake_min_settle_us, 0);
}

static void test_frame_encoding_and_sequence(void)
{
    fake_reset_all();
    fake_tx_len = 0;
    proto_tx_init();
    const uint8_t p[3] = {1, 2, 3};
    CHECK(proto_send(KP_MSG_ACK, p, 3, 0));
    const uint8_t want[] = {0xA5, 3, 0, 0x04, 1, 2, 3};
    CHECK(memcmp(fake_tx, want, sizeof want) == 0);
    uint16_t crc = ref_crc(fake_tx + 1, 6);
    CHECK_EQ(fake_tx[7], crc & 0xFF);
    CHECK_EQ(fake_tx[8], crc >> 8);
    CHECK_EQ(fake_tx_len, 9);
    for (int i = 0; i < 255; i++)
        proto_send(KP_MSG_HEARTBEAT, p, 0, 0);
    CHECK_EQ(fake_tx[fake_tx_len - 6 + 2], 255);
    proto_send(KP_MSG_HEARTBEAT, p, 0, 0);
    CHECK_EQ(fake_tx[fake_tx_len - 6 + 2], 0); /* wraps */
    /* a frame that does not fit (with its reserve) is not sent at all */
    uint32_t before = fake_tx_len;
    fake_tx_room = 10;
    CHECK(!proto_send(KP_MSG_ACK, p, 3, 2));
    CHECK(proto_send(KP_MSG_ACK, p, 3, 1));
    CHECK_EQ(fake_tx_len, before + 9);
    CHECK_EQ(fake_tx[before + 2], 1); /* the refused frame took no sequence number */
}

static int feed(const uint8_t *b, uint32_t n, frame_t *out, uint8_t *types, int max)
{
    int got = 0;
    for (uint32_t i = 0; i < n; i++)
        if (proto_rx_byte(b[i], 0, out) && got < max)
            types[got++] = out->type;
    return got;
}

static void test_parser_resync(void)
{
    frame_t f;
    uint8_t types[16];
    uint8_t buf[1024];
    uint32_t n;
    const uint8_t mode[2] = {1, 50};

    proto_rx_init(0x80);
    n = build_frame(buf, 9, KP_MSG_SET_MODE, mode, 2);
    CHECK_EQ(feed(buf, n, &f, types, 16), 1);
    CHECK_EQ(f.seq, 9);
    CHECK_EQ(f.len, 2);
    CHECK_EQ(f.payload[1], 50);

    /* garbage, including lone SOFs and bogus lengths, before a good frame */
    proto_rx_init(0x80);
    const uint8_t junk[] = {0x00, 0xA5, 0xFF, 0x13, 0xA5, 0x02, 0x01, 0x83, 0x00, 0xA5, 0xA5, 0x7E};
    memcpy(buf, junk, sizeof junk);
    n = sizeof junk + build_frame(buf + sizeof junk, 1, KP_MSG_IDENTIFY, NULL, 0);
    CHECK_EQ(feed(buf, n, &f, types, 16), 1);
    CHECK_EQ(types[0], KP_MSG_IDENTIFY);
    CHECK(proto_rx_dropped_bytes() >= sizeof junk);

    /* a corrupted frame is dropped; the good frame right after it is delivered */
    proto_rx_init(0x80);
    n = build_frame(buf, 2, KP_MSG_SET_MODE, mode, 2);
    buf[5] ^= 0x40;
    n += build_frame(buf + n, 3, KP_MSG_RESET, NULL, 0);
    CHECK_EQ(feed(buf, n, &f, types, 16), 1);
    CHECK_EQ(types[0], KP_MSG_RESET);
    CHECK_EQ(proto_rx_bad_crc(), 1);

    /* a good frame that starts inside a bad candidate: SOF, LEN 88, SEQ, SET_LEDS makes a
     * plausible header whose "payload" swallows the real frame; the CRC fails and the
     * rescan from the candidate's second byte finds the real frame */
    proto_rx_init(0x80);
    buf[0] = 0xA5;
    buf[1] = 88;
    buf[2] = 0;
    buf[3] = KP_MSG_SET_LEDS;
    n = 4 + build_frame(buf + 4, 4, KP_MSG_IDENTIFY, NULL, 0);
    n += build_frame(buf + n, 5, KP_MSG_SET_MODE, mode, 2);
    memset(buf + n, 0x55, 100);
    n += 100;
    int got = feed(buf, n, &f, types, 16);
    CHECK_EQ(got, 2);
    CHECK_EQ(types[0], KP_MSG_IDENTIFY);
    CHECK_EQ(types[1], KP_MSG_SET_MODE);

    /* LEN above the maximum, an unknown TYPE, a wrong length, a device->host TYPE */
    proto_rx_init(0x80);
    uint8_t bogus[64];
    n = 0;
    bogus[n++] = 0xA5, bogus[n++] = 241, bogus[n++] = 0, bogus[n++] = KP_MSG_SET_MODE;
    n += build_frame(bogus + n, 0, 0x8F, NULL, 0);
    n += build_frame(bogus + n, 0, KP_MSG_SET_MODE, mode, 1);
    n += build_frame(bogus + n, 0, KP_MSG_BOARD, NULL, 0);
    n += build_frame(bogus + n, 6, KP_MSG_COMMIT_CAL, NULL, 0);
    CHECK_EQ(feed(bogus, n, &f, types, 16), 1);
    CHECK_EQ(types[0], KP_MSG_COMMIT_CAL);

    /* a frame split over many calls is delivered once, when complete */
    proto_rx_init(0x80);
    n = build_frame(buf, 7, KP_MSG_SET_MODE, mode, 2);
    int total = 0;
    for (uint32_t i = 0; i < n; i++) {
        total += proto_rx_byte(buf[i], i, &f);
        CHECK_EQ(proto_rx_idle(i, &f), 0);
    }
    CHECK_EQ(total, 1);

    /* a frame that stops half-way is abandoned after the stall time */
    proto_rx_init(0x80);
    n = build_frame(buf, 8, KP_MSG_SET_MODE, mode, 2);
    for (uint32_t i = 0; i < 4; i++)
        proto_rx_byte(buf[i], 100, &f);
    CHECK_EQ(proto_rx_idle(100 + RX_STALL_MS - 1, &f), 0);
    CHECK_EQ(proto_rx_idle(100 + RX_STALL_MS, &f), 0);
    n = build_frame(buf, 9, KP_MSG_RESET, NULL, 0);
    CHECK_EQ(feed(buf, n, &f, types, 16), 1);
    CHECK_EQ(types[0], KP_MSG_RESET);
}

/* Valid frames with random junk (including stray SOF bytes and plausible headers)
 * between them: every valid frame must come out, in order, exactly once. */
static void test_parser_finds_every_frame_in_noise(void)
{
    static uint8_t stream[200000];
    static uint8_t want_seq[3000];
    uint32_t n = 0, frames_in = 0, x = 12345;
    while (frames_in < 2000) {
        x = x * 1103515245u + 12345u;
        uint32_t junk = (x >> 16) % 40;
        for (uint32_t j = 0; j < junk; j++) {
            x = x * 1103515245u + 12345u;
            uint8_t b = (uint8_t)(x >> 16);
            stream[n++] = (x >> 8) % 5 == 0 ? 0xA5 : b;
        }
        uint8_t seq = (uint8_t)frames_in;
        uint8_t payload[2 + 9 * 3];
        for (uint32_t j = 0; j < sizeof payload; j++)
            payload[j] = (uint8_t)(x >> (j % 24));
        switch (frames_in % 3) {
        case 0:
            n += build_frame(stream + n, seq, KP_MSG_IDENTIFY, NULL, 0);
            break;
        case 1:
            n += build_frame(stream + n, seq, KP_MSG_SET_MODE, payload, 2);
            break;
        default:
            payload[1] = 3;
            n += build_frame(stream + n, seq, KP_MSG_WRITE_CAL, payload, sizeof payload);
            break;
        }
        want_seq[frames_in++] = seq;
    }
    proto_rx_init(0x80);
    frame_t f;
    uint32_t got = 0, in_order = 1;
    for (uint32_t i = 0; i < n; i++)
        if (proto_rx_byte(stream[i], i / 25, &f)) {
            if (got < frames_in && f.seq != want_seq[got])
                in_order = 0;
            got++;
        }
    CHECK_EQ(got, frames_in);
    CHECK(in_order);
}

static void set_board_adc(const char *board)
{
    for (int i = 0; i < 64; i++) {
        switch (board[i]) {
        case 'X': fake_adc[i] = 212; break;
        case 'O': fake_adc[i] = 812; break;
        case 'x': fake_adc[i] = 362; break;
        case 'o': fake_adc[i] = 662; break;
        case '?': fake_adc[i] = 0; break;
        default: fake_adc[i] = 512; break;
        }
    }
}

static const char *START =
    "---------------------------OX------XO---------------------------";

static void board_string(const rx_frame_t *f, char *out)
{
    for (int i = 0; i < 64; i++)
        out[i] = KP_STATE_CHARS[board_square(f, i)];
    out[64] = 0;
}

static void test_board_frames_rate_and_content(void)
{
    fresh();
    set_board_adc(START);
    run_ms(100); /* the board settles, with a change frame or a few */
    CHECK(count_type(KP_MSG_BOARD) > 10);
    clear_frames();
    run_ms(1000); /* a steady board: the periodic stream alone */
    int boards = count_type(KP_MSG_BOARD);
    CHECK(boards >= 99 && boards <= 101);
    int beats = count_type(KP_MSG_HEARTBEAT);
    CHECK(beats >= 4 && beats <= 5);
    const rx_frame_t *b = last_type(KP_MSG_BOARD);
    CHECK(b != NULL);
    if (!b)
        return;
    CHECK_EQ(b->len, KP_LEN_BOARD);
    char s[65];
    board_string(b, s);
    CHECK(strcmp(s, START) == 0);
    CHECK(get32(b->payload) >= 1085 && get32(b->payload) <= 1100);
    CHECK_EQ(b->payload[4], 0); /* no calibration, no watchdog, board mode */
    /* frames are evenly spaced: t_ms of consecutive frames differ by ~10 ms */
    const rx_frame_t *b1 = find_type(KP_MSG_BOARD, 50), *b2 = find_type(KP_MSG_BOARD, 51);
    uint32_t gap = get32(b2->payload) - get32(b1->payload);
    CHECK(gap >= 9 && gap <= 11);
    /* heartbeat t_ms every 250 ms */
    const rx_frame_t *h1 = find_type(KP_MSG_HEARTBEAT, 1), *h2 = find_type(KP_MSG_HEARTBEAT, 2);
    CHECK_EQ(get32(h2->payload) - get32(h1->payload), 250);
}

static void test_first_frames_are_unknown_until_debounced(void)
{
    fresh();
    set_board_adc(START);
    /* 2 full scans = 32 steps: not yet settled */
    for (int i = 0; i < 32; i++)
        pass();
    CHECK_EQ(app_board_state(27), KP_STATE_UNKNOWN);
    for (int i = 0; i < 16; i++)
        pass();
    CHECK_EQ(app_board_state(27), KP_STATE_WHITE);
    CHECK_EQ(app_board_state(28), KP_STATE_BLACK);
    CHECK_EQ(app_board_state(0), KP_STATE_EMPTY);
}

static void test_shifted_and_fault_squares(void)
{
    fresh();
    char b[65];
    memcpy(b, START, 65);
    b[0] = 'x';
    b[1] = 'o';
    b[63] = '?';
    set_board_adc(b);
    run_ms(100);
    char s[65];
    board_string(last_type(KP_MSG_BOARD), s);
    CHECK(strcmp(s, b) == 0);
    /* a disc placed on d3: the change shows only after three scans (48 passes) */
    fake_adc[19] = 212;
    for (int i = 0; i < 32; i++)
        pass();
    CHECK_EQ(app_board_state(19), KP_STATE_EMPTY);
    for (int i = 0; i < 32; i++)
        pass();
    CHECK_EQ(app_board_state(19), KP_STATE_BLACK);
}

/* A debounced change is sent at once, not at the next frame tick; the stream then keeps
 * its period from that frame, and a steady board gets no extra frames. */
static void test_change_sends_a_frame_at_once(void)
{
    fresh();
    set_board_adc(START);
    const uint8_t slow[2] = {KP_MODE_BOARD, 25}; /* 40 ms ticks: a change is well inside */
    send_cmd(1, KP_MSG_SET_MODE, slow, 2);
    run_ms(200);
    clear_frames();
    fake_tx_len = 0;
    tx_parsed = 0;
    run_ms(1000);
    int steady = count_type(KP_MSG_BOARD);
    CHECK(steady >= 24 && steady <= 26);

    /* run until just after a periodic frame, then put a disc on d3 */
    int before = count_type(KP_MSG_BOARD);
    while (collect(), count_type(KP_MSG_BOARD) == before)
        pass();
    const rx_frame_t *tick = last_type(KP_MSG_BOARD);
    uint32_t tick_ms = get32(tick->payload);
    fake_adc[19] = 212;
    uint32_t placed_us = fake_us;
    uint32_t scans_before = scan_count();
    int sent_with_change = 0;
    while (app_board_state(19) != KP_STATE_BLACK && fake_us - placed_us < 50000u) {
        pass();
        collect();
        const rx_frame_t *f = last_type(KP_MSG_BOARD);
        sent_with_change = f != NULL && board_square(f, 19) == KP_STATE_BLACK;
    }
    CHECK_EQ(app_board_state(19), KP_STATE_BLACK);
    /* the pass that changed the debounced state also sent it */
    CHECK(sent_with_change);
    /* on d3's third reading with the disc (scan 2 or 3 from here, as the scan under way
     * may have read d3 before the disc was down), in the pass that converted d3, not
     * at the end of that scan */
    uint32_t scans = scan_count() - scans_before;
    CHECK(scans >= 2 && scans <= 3);
    CHECK_EQ(scan_last_channel(), 19 % 16);
    /* every frame before it still showed d3 empty */
    const rx_frame_t *now = last_type(KP_MSG_BOARD);
    for (int i = 0; i < nframes; i++)
        if (frames[i].type == KP_MSG_BOARD && &frames[i] != now)
            CHECK_EQ(board_square(&frames[i], 19), KP_STATE_EMPTY);
    /* three scans at most take ~9 ms, so the frame showing the disc went out long before
     * the next 40 ms tick: without the change frame it could only come at that tick */
    uint32_t change_ms = now ? get32(now->payload) : 0;
    CHECK(change_ms - tick_ms < 3 * 16 * PASS_US / 1000 + 1);

    /* the next periodic frame comes a full period after the change frame */
    int n = count_type(KP_MSG_BOARD);
    while (collect(), count_type(KP_MSG_BOARD) == n)
        pass();
    const rx_frame_t *next = last_type(KP_MSG_BOARD);
    uint32_t gap = get32(next->payload) - change_ms;
    CHECK(gap >= 39 && gap <= 41);

    /* a change when the transmit buffer is full is sent as soon as there is room */
    fake_tx_room = 0;
    fake_adc[20] = 812;
    uint32_t start = fake_us;
    while (app_board_state(20) != KP_STATE_WHITE && fake_us - start < 50000u)
        pass();
    CHECK_EQ(app_board_state(20), KP_STATE_WHITE);
    n = count_type(KP_MSG_BOARD);
    collect();
    CHECK_EQ(count_type(KP_MSG_BOARD), n);
    fake_tx_room = UART_TX_BUF;
    pass();
    collect();
    CHECK_EQ(count_type(KP_MSG_BOARD), n + 1);
    CHECK_EQ(board_square(last_type(KP_MSG_BOARD), 20), KP_STATE_WHITE);

    /* while bytes are still queued for the line, a change waits; the next frame to go,
     * here the periodic one, carries it, and no change frame follows once the queue is
     * empty again */
    fake_tx_room = UART_TX_BUF - 1;
    fake_adc[21] = 212;
    start = fake_us;
    while (app_board_state(21) != KP_STATE_BLACK && fake_us - start < 50000u)
        pass();
    CHECK_EQ(app_board_state(21), KP_STATE_BLACK);
    collect();
    n = count_type(KP_MSG_BOARD);
    CHECK(board_square(last_type(KP_MSG_BOARD), 21) != KP_STATE_BLACK);
    while (collect(), count_type(KP_MSG_BOARD) == n)
        pass();
    CHECK_EQ(board_square(last_type(KP_MSG_BOARD), 21), KP_STATE_BLACK);
    fake_tx_room = UART_TX_BUF;
    n = count_type(KP_MSG_BOARD);
    pass();
    collect();
    CHECK_EQ(count_type(KP_MSG_BOARD), n);
}

static void test_identify_and_duplicate_reack(void)
{
    fresh();
    const uint8_t id[4] = {0x78, 0x56, 0x34, 0x12};
    memcpy(fake_eeprom + EE_BOARD_ID, id, 4);
    boot();
    send_cmd(40, KP_MSG_IDENTIFY, NULL, 0);
    run_ms(5);
    int status = -1;
    CHECK_EQ(acks_for(40, KP_MSG_IDENTIFY, &status), 1);
    CHECK_EQ(status, KP_STATUS_OK);
    const rx_frame_t *idf = last_type(KP_MSG_IDENTITY);
    CHECK(idf != NULL);
    if (!idf)
        return;
    CHECK_EQ(idf->len, KP_LEN_IDENTITY);
    CHECK_EQ(idf->payload[0], KP_PROTOCOL_VERSION);
    CHECK_EQ(get32(idf->payload + 4), 0x12345678);
    CHECK_EQ(get16(idf->payload + 8), 0);
    /* the ACK precedes the IDENTITY */
    int ack_at = -1, id_at = -1;
    for (int i = 0; i < nframes; i++) {
        if (frames[i].type == KP_MSG_ACK && ack_at < 0)
            ack_at = i;
        if (frames[i].type == KP_MSG_IDENTITY && id_at < 0)
            id_at = i;
    }
    CHECK(ack_at >= 0 && ack_at < id_at);

    /* SET_LEDS with a slow blink; re-sent with the same SEQ 600 ms later it must not
     * restart the pattern (which would light the LED again) */
    uint8_t leds[88] = {0};
    leds[3] = 200; /* palette 1 = red */
    leds[24 + 10] = (KP_LED_SLOW_BLINK << 4) | 1;
    send_cmd(41, KP_MSG_SET_LEDS, leds, 88);
    run_ms(5);
    CHECK_EQ(fake_leds[3 * 10 + 1], 200);
    run_ms(600);
    CHECK_EQ(fake_leds[3 * 10 + 1], 0);
    send_cmd(41, KP_MSG_SET_LEDS, leds, 88);
    run_ms(5);
    CHECK_EQ(acks_for(41, KP_MSG_SET_LEDS, &status), 2);
    CHECK_EQ(status, KP_STATUS_OK);
    CHECK_EQ(fake_leds[3 * 10 + 1], 0); /* not re-executed */
    /* same SEQ but another TYPE is a new command */
    send_cmd(41, KP_MSG_IDENTIFY, NULL, 0);
    run_ms(5);
    CHECK_EQ(acks_for(41, KP_MSG_IDENTIFY, NULL), 1);
    /* a repeated IDENTIFY is answered with IDENTITY again */
    int ids = count_type(KP_MSG_IDENTITY);
    send_cmd(41, KP_MSG_IDENTIFY, NULL, 0);
    run_ms(5);
    CHECK_EQ(acks_for(41, KP_MSG_IDENTIFY, NULL), 2);
    CHECK_EQ(count_type(KP_MSG_IDENTITY), ids + 1);
}

static void test_set_mode_raw_and_rates(void)
{
    fresh();
    for (int i = 0; i < 64; i++)
        fake_adc[i] = (uint16_t)(300 + i);
    const uint8_t raw[2] = {KP_MODE_RAW, 0};
    send_cmd(1, KP_MSG_SET_MODE, raw, 2);
    run_ms(20);
    clear_frames();
    run_ms(500);
    int raws = count_type(KP_MSG_RAW);
    CHECK(raws >= 49 && raws <= 51);
    CHECK_EQ(count_type(KP_MSG_BOARD), 0);
    const rx_frame_t *r = last_type(KP_MSG_RAW);
    CHECK(r && r->len == KP_LEN_RAW);
    if (r) {
        int ok = 1;
        for (int i = 0; i < 64; i++)
            ok &= get16(r->payload + 4 + 2 * i) == 300 + i;
        CHECK(ok);
    }
    const rx_frame_t *h = last_type(KP_MSG_HEARTBEAT);
    CHECK(h && (h->payload[4] & KP_FLAG_RAW_MODE));

    const uint8_t slow[2] = {KP_MODE_BOARD, 25};
    send_cmd(2, KP_MSG_SET_MODE, slow, 2);
    run_ms(20);
    clear_frames();
    run_ms(1000);
    CHECK(count_type(KP_MSG_BOARD) >= 24 && count_type(KP_MSG_BOARD) <= 26);

    int status = -1;
    const uint8_t bad_mode[2] = {2, 0};
    send_cmd(3, KP_MSG_SET_MODE, bad_mode, 2);
    const uint8_t too_fast[2] = {KP_MODE_RAW, KP_MAX_RAW_RATE_HZ + 1};
    send_cmd(4, KP_MSG_SET_MODE, too_fast, 2);
    run_ms(5);
    CHECK_EQ(acks_for(3, KP_MSG_SET_MODE, &status), 1);
    CHECK_EQ(status, KP_STATUS_BAD_VALUE);
    CHECK_EQ(acks_for(4, KP_MSG_SET_MODE, &status), 1);
    CHECK_EQ(status, KP_STATUS_BAD_VALUE);
    clear_frames();
    run_ms(200); /* still board frames at 25 Hz */
    CHECK_EQ(count_type(KP_MSG_RAW), 0);
    CHECK(count_type(KP_MSG_BOARD) >= 4 && count_type(KP_MSG_BOARD) <= 6);
}

static void cal_for(int sq, cal_record_t *c)
{
    c->empty_lo = (uint16_t)(400 + sq);
    c->empty_hi = (uint16_t)(600 + sq);
    c->black_th = (uint16_t)(250 + sq);
    c->white_th = (uint16_t)(780 + sq);
    c->hysteresis = (uint8_t)(sq % 13);
}

static void write_cal(uint8_t seq, uint8_t first, uint8_t count)
{
    uint8_t p[2 + 16 * 9];
    p[0] = first;
    p[1] = count;
    for (int i = 0; i < count; i++) {
        cal_record_t c;
        cal_for(first + i, &c);
        cal_record_encode(&c, p + 2 + 9 * i);
    }
    send_cmd(seq, KP_MSG_WRITE_CAL, p, (uint8_t)(2 + 9 * count));
}

static void test_calibration_round_trip(void)
{
    fresh();
    int status = -1;
    /* commit before all 64 records are written */
    write_cal(1, 0, 16);
    send_cmd(2, KP_MSG_COMMIT_CAL, NULL, 0);
    run_ms(5);
    CHECK_EQ(acks_for(1, KP_MSG_WRITE_CAL, &status), 1);
    CHECK_EQ(status, KP_STATUS_OK);
    CHECK_EQ(acks_for(2, KP_MSG_COMMIT_CAL, &status), 1);
    CHECK_EQ(status, KP_STATUS_BAD_VALUE);

    write_cal(3, 16, 16);
    write_cal(4, 32, 16);
    run_ms(5);
    write_cal(5, 48, 16);
    send_cmd(6, KP_MSG_COMMIT_CAL, NULL, 0);
    run_ms(100);
    CHECK_EQ(acks_for(6, KP_MSG_COMMIT_CAL, NULL), 0); /* the ACK waits for the EEPROM */
    CHECK(calib_busy());
    send_cmd(6, KP_MSG_COMMIT_CAL, NULL, 0); /* host retry while busy: no ACK yet */
    run_ms(100);
    CHECK_EQ(acks_for(6, KP_MSG_COMMIT_CAL, NULL), 0);
    /* frames keep flowing during the write */
    clear_frames();
    run_ms(100);
    CHECK(count_type(KP_MSG_BOARD) >= 9);
    run_ms(2500);
    CHECK_EQ(acks_for(6, KP_MSG_COMMIT_CAL, &status), 1);
    CHECK_EQ(status, KP_STATUS_OK);
    CHECK(!calib_busy());
    CHECK(fake_eeprom_writes >= 500 && fake_eeprom_writes <= EE_CAL_IMAGE_LEN);

    /* the EEPROM holds the records in protocol layout followed by their CRC */
    uint8_t image[64 * 9];
    for (int i = 0; i < 64; i++) {
        cal_record_t c;
        cal_for(i, &c);
        cal_record_encode(&c, image + 9 * i);
    }
    CHECK(memcmp(fake_eeprom + EE_CAL_RECORDS, image, sizeof image) == 0);
    uint16_t crc = ref_crc(image, sizeof image);
    CHECK_EQ(get16(fake_eeprom + EE_CAL_CRC), crc);
    CHECK_EQ(calib_crc(), crc);
    CHECK(calib_valid());

    send_cmd(7, KP_MSG_IDENTIFY, NULL, 0);
    run_ms(5);
    const rx_frame_t *idf = last_type(KP_MSG_IDENTITY);
    CHECK(idf && get16(idf->payload + 8) == crc && (idf->payload[10] & KP_FLAG_CAL_VALID));

    /* after a power cycle the calibration comes back from EEPROM */
    boot();
    CHECK(calib_valid());
    CHECK_EQ(calib_crc(), crc);
    CHECK_EQ(calib_record(37)->empty_lo, 437);
    CHECK_EQ(calib_record(37)->white_th, 817);
    CHECK_EQ(calib_record(37)->hysteresis, 37 % 13);
    run_ms(300);
    const rx_frame_t *hb = last_type(KP_MSG_HEARTBEAT);
    CHECK(hb && (hb->payload[4] & KP_FLAG_CAL_VALID));
    /* classification uses each square's own record: 430 is empty on a1 (empty_lo 400)
     * but black-shifted on h8 (empty_lo 463) */
    fake_adc[0] = 430;
    fake_adc[63] = 430;
    run_ms(50);
    CHECK_EQ(app_board_state(0), KP_STATE_EMPTY);
    CHECK_EQ(app_board_state(63), KP_STATE_BLACK_SHIFTED);

    /* re-committing the same set writes nothing */
    uint32_t writes = fake_eeprom_writes;
    for (uint8_t q = 0; q < 4; q++)
        write_cal((uint8_t)(10 + q), (uint8_t)(16 * q), 16);
    send_cmd(14, KP_MSG_COMMIT_CAL, NULL, 0);
    run_ms(20);
    CHECK_EQ(acks_for(14, KP_MSG_COMMIT_CAL, &status), 1);
    CHECK_EQ(status, KP_STATUS_OK);
    CHECK_EQ(fake_eeprom_writes, writes);
    /* and a retry after the ACK gets the same answer without a new commit */
    send_cmd(14, KP_MSG_COMMIT_CAL, NULL, 0);
    run_ms(5);
    CHECK_EQ(acks_for(14, KP_MSG_COMMIT_CAL, &status), 2);
    CHECK_EQ(status, KP_STATUS_OK);

    /* a flipped bit in EEPROM: CRC fails, defaults are used, the flag is clear */
    fake_eeprom[EE_CAL_RECORDS + 100] ^= 0x04;
    boot();
    CHECK(!calib_valid());
    CHECK_EQ(calib_crc(), 0);
    CHECK_EQ(calib_record(37)->empty_lo, CAL_DEFAULT_EMPTY_LO);
}

static void test_calibration_rejects_bad_input_and_eeprom_failure(void)
{
    fresh();
    int status = -1;
    uint8_t p[2 + 9];
    cal_record_t c = CAL;
    p[0] = 60;
    p[1] = 1;
    c.black_th = 460; /* above empty_lo */
    cal_record_encode(&c, p + 2);
    send_cmd(1, KP_MSG_WRITE_CAL, p, sizeof p);
    p[0] = 64; /* past h8 */
    cal_record_encode(&CAL, p + 2);
    send_cmd(2, KP_MSG_WRITE_CAL, p, sizeof p);
    p[0] = 0;
    p[1] = 2; /* count says 2, one record follows */
    send_cmd(3, KP_MSG_WRITE_CAL, p, sizeof p);
    p[1] = 0;
    send_cmd(4, KP_MSG_WRITE_CAL, p, sizeof p);
    run_ms(5);
    CHECK_EQ(acks_for(1, KP_MSG_WRITE_CAL, &status), 1);
    CHECK_EQ(status, KP_STATUS_BAD_VALUE);
    CHECK_EQ(acks_for(2, KP_MSG_WRITE_CAL, &status), 1);
    CHECK_EQ(status, KP_STATUS_BAD_VALUE);
    CHECK_EQ(acks_for(3, KP_MSG_WRITE_CAL, &status), 1);
    CHECK_EQ(status, KP_STATUS_BAD_LENGTH);
    CHECK_EQ(acks_for(4, KP_MSG_WRITE_CAL, &status), 1);
    CHECK_EQ(status, KP_STATUS_BAD_VALUE);

    /* the EEPROM does not take the writes: the read-back fails, status 4 */
    for (uint8_t q = 0; q < 4; q++)
        write_cal((uint8_t)(10 + q), (uint8_t)(16 * q), 16);
    fake_eeprom_fail = 1;
    fake_eeprom_write_us = 100;
    send_cmd(20, KP_MSG_COMMIT_CAL, NULL, 0);
    run_ms(500);
    CHECK_EQ(acks_for(20, KP_MSG_COMMIT_CAL, &status), 1);
    CHECK_EQ(status, KP_STATUS_EEPROM_FAILURE);
    CHECK(!calib_valid());
}

static void test_commands_during_a_commit(void)
{
    fresh();
    int status = -1;
    for (uint8_t q = 0; q < 4; q++)
        write_cal((uint8_t)(1 + q), (uint8_t)(16 * q), 16);
    send_cmd(5, KP_MSG_COMMIT_CAL, NULL, 0);
    run_ms(50);
    CHECK(calib_busy());
    /* other commands are served while the EEPROM is written */
    const uint8_t raw[2] = {KP_MODE_RAW, 0};
    send_cmd(6, KP_MSG_SET_MODE, raw, 2);
    write_cal(7, 0, 16); /* but the staged set cannot change under the writer */
    run_ms(20);
    CHECK_EQ(acks_for(6, KP_MSG_SET_MODE, &status), 1);
    CHECK_EQ(status, KP_STATUS_OK);
    CHECK_EQ(acks_for(7, KP_MSG_WRITE_CAL, &status), 1);
    CHECK_EQ(status, KP_STATUS_BAD_VALUE);
    CHECK_EQ(acks_for(5, KP_MSG_COMMIT_CAL, NULL), 0);
    run_ms(2500);
    /* the commit's ACK still carries the commit's own SEQ */
    CHECK_EQ(acks_for(5, KP_MSG_COMMIT_CAL, &status), 1);
    CHECK_EQ(status, KP_STATUS_OK);
    CHECK(calib_valid());
}

static int registered_calls;
static uint8_t registered_handler(const frame_t *f, uint32_t now_ms)
{
    (void)now_ms;
    registered_calls++;
    return f->len == 1 ? KP_STATUS_OK : KP_STATUS_BAD_VALUE;
}

static void test_commands_are_registered_by_their_owners(void)
{
    fresh();
    /* the main loop registered its own commands: a second owner is refused */
    CHECK_EQ(commands_register(KP_MSG_SET_MODE, registered_handler), 0);
    CHECK_EQ(commands_register(0x90, registered_handler), 1);
    CHECK_EQ(commands_register(0x90, registered_handler), 0);
    registered_calls = 0;
    const uint8_t one = 7;
    frame_t f = {50, 0x90, 1, &one};
    commands_handle(&f, 0);
    collect();
    int status = -1;
    CHECK_EQ(registered_calls, 1);
    CHECK_EQ(acks_for(50, 0x90, &status), 1);
    CHECK_EQ(status, KP_STATUS_OK);
    /* a re-send is answered again, not executed again */
    commands_handle(&f, 0);
    collect();
    CHECK_EQ(registered_calls, 1);
    CHECK_EQ(acks_for(50, 0x90, NULL), 2);
    /* a type nobody registered is answered UNSUPPORTED */
    frame_t g = {51, 0x91, 0, NULL};
    commands_handle(&g, 0);
    collect();
    CHECK_EQ(acks_for(51, 0x91, &status), 1);
    CHECK_EQ(status, KP_STATUS_UNSUPPORTED);
    /* the table is bounded: filling it is refused, not overrun */
    int added = 0;
    for (uint8_t type = 0xA0; type < 0xB0; type++)
        added += commands_register(type, registered_handler);
    CHECK(added > 0 && added < 16);
}

static void test_reset_command_sets_watchdog_flag(void)
{
    fresh();
    send_cmd(9, KP_MSG_RESET, NULL, 0);
    run_ms(5);
    CHECK(fake_reset_requested);
    CHECK_EQ(acks_for(9, KP_MSG_RESET, NULL), 1);
    /* the board comes back from a watchdog reset */
    fake_boot_watchdog = 1;
    fake_us = 0;
    boot();
    run_ms(300);
    const rx_frame_t *hb = last_type(KP_MSG_HEARTBEAT);
    CHECK(hb && (hb->payload[4] & KP_FLAG_WATCHDOG_RESET));
    const rx_frame_t *bf = last_type(KP_MSG_BOARD);
    CHECK(bf && (bf->payload[4] & KP_FLAG_WATCHDOG_RESET));
}

static void test_answers_use_the_reserve_when_frames_cannot(void)
{
    fresh();
    fake_tx_room = KP_LEN_BOARD + KP_FRAME_OVERHEAD + TX_RESERVE - 1;
    run_ms(100);
    CHECK_EQ(count_type(KP_MSG_BOARD), 0);
    send_cmd(5, KP_MSG_IDENTIFY, NULL, 0);
    run_ms(5);
    CHECK_EQ(acks_for(5, KP_MSG_IDENTIFY, NULL), 1);
    CHECK_EQ(count_type(KP_MSG_IDENTITY), 1);
}

static void test_led_patterns_timing(void)
{
    fake_reset_all();
    leds_init(0);
    uint8_t p[88] = {0};
    const uint8_t palette[8][3] = {{0, 0, 0}, {255, 0, 0}, {0, 255, 0}, {0, 0, 255},
                                   {10, 20, 30}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    memcpy(p, palette, 24);
    p[24 + 0] = 0x01;                          /* a1 steady red */
    p[24 + 1] = (KP_LED_SLOW_BLINK << 4) | 2;  /* b1 slow green */
    p[24 + 2] = (KP_LED_FAST_BLINK << 4) | 3;  /* c1 fast blue */
    p[24 + 3] = (KP_LED_BREATHE << 4) | 1;     /* d1 breathing red */
    p[24 + 4] = 0x04;
    CHECK_EQ(leds_set(p, 88, 1000), KP_STATUS_OK);
    uint8_t g[192];
    leds_render(1000, g);
    CHECK(g[0] == 0 && g[1] == 255 && g[2] == 0);     /* wire order G, R, B */
    CHECK(g[3] == 255 && g[4] == 0 && g[5] == 0);     /* lit at the start */
    CHECK_EQ(g[8], 255);
    CHECK_EQ(g[10], 255);                            /* breathe starts full */
    CHECK(g[12] == 20 && g[13] == 10 && g[14] == 30);
    leds_render(1000 + 499, g);
    CHECK_EQ(g[3], 255);
    leds_render(1000 + 500, g);
    CHECK_EQ(g[3], 0);
    CHECK(g[10] > 50 && g[10] < 80); /* breathe a quarter in: (1/2)^2 of full */
    leds_render(1000 + 999, g);
    CHECK_EQ(g[3], 0);
    leds_render(1000 + 1000, g);
    CHECK_EQ(g[3], 255);
    CHECK_EQ(g[10], 0); /* breathe dark half-way */
    leds_render(1000 + 2000, g);
    CHECK_EQ(g[10], 255);
    leds_render(1000 + 124, g);
    CHECK_EQ(g[8], 255);
    leds_render(1000 + 125, g);
    CHECK_EQ(g[8], 0);
    leds_render(1000 + 250, g);
    CHECK_EQ(g[8], 255);
    leds_render(1000 + 250, g);
    CHECK_EQ(g[1], 255); /* steady stays */
    leds_render(1000 + 1500, g);
    CHECK(g[10] > 50 && g[10] < 80);
    leds_render(1000 + 950, g);
    CHECK(g[10] < 10);

    /* the strip is rewritten only when something changes */
    uint32_t shows = fake_led_shows;
    for (uint32_t t = 1000; t < 3000; t += 5)
        leds_poll(t);
    uint32_t with_breathe = fake_led_shows - shows;
    CHECK(with_breathe > 50); /* breathing changes every refresh */
    p[24 + 3] = 0;
    leds_set(p, 88, 3000);
    shows = fake_led_shows;
    for (uint32_t t = 3000; t < 5000; t += 5)
        leds_poll(t);
    /* slow: 4 edges in 2 s, fast: 16; plus the first show */
    uint32_t blinks = fake_led_shows - shows;
    CHECK(blinks >= 16 && blinks <= 21);
    for (int i = 0; i < 64; i++)
        p[24 + i] = 0;
    leds_set(p, 88, 5000);
    shows = fake_led_shows;
    for (uint32_t t = 5000; t < 7000; t += 5)
        leds_poll(t);
    CHECK_EQ(fake_led_shows - shows, 1);

    /* a bad palette index or pattern is refused and changes nothing */
    p[24 + 7] = 0x08;
    CHECK_EQ(leds_set(p, 88, 7000), KP_STATUS_BAD_VALUE);
    p[24 + 7] = 0x40;
    CHECK_EQ(leds_set(p, 88, 7000), KP_STATUS_BAD_VALUE);
    CHECK_EQ(leds_set(p, 87, 7000), KP_STATUS_BAD_LENGTH);
}

static void test_led_power_limit(void)
{
    fake_reset_all();
    leds_init(0);
    uint8_t p[88];
    memset(p, 255, 24);
    memset(p + 24, 0x01, 64);
    CHECK_EQ(leds_set(p, 88, 0), KP_STATUS_OK);
    uint8_t g[192];
    leds_render(0, g);
    uint32_t sum = 0;
    for (int i = 0; i < 192; i++)
        sum += g[i];
    CHECK(sum <= LED_MAX_SUM);
    CHECK(sum >= LED_MAX_SUM - 192);
    CHECK(g[0] == g[1] && g[1] == g[2]); /* colour kept, only dimmed */
}

typedef void (*test_fn)(void);
static const struct {
    const char *name;
    test_fn fn;
} TESTS[] = {
    {"crc_check_value", test_crc_check_value},
    {"classify_bands", test_classify_bands},
    {"classify_hysteresis", test_classify_hysteresis},
    {"debounce_needs_three_scans", test_debounce_needs_three_scans},
    {"scan_sequencing", test_scan_sequencing},
    {"scan_timing", test_scan_timing},
    {"frame_encoding_and_sequence", test_frame_encoding_and_sequence},
    {"parser_resync", test_parser_resync},
    {"parser_finds_every_frame_in_noise", test_parser_finds_every_frame_in_noise},
    {"board_frames_rate_and_content", test_board_frames_rate_and_content},
    {"first_frames_are_unknown_until_debounced", test_first_frames_are_unknown_until_debounced},
    {"shifted_and_fault_squares", test_shifted_and_fault_squares},
    {"change_sends_a_frame_at_once", test_change_sends_a_frame_at_once},
    {"identify_and_duplicate_reack", test_identify_and_duplicate_reack},
    {"set_mode_raw_and_rates", test_set_mode_raw_and_rates},
    {"calibration_round_trip", test_calibration_round_trip},
    {"calibration_rejects_bad_input_and_eeprom_failure",
     test_calibration_rejects_bad_input_and_eeprom_failure},
    {"commands_during_a_commit", test_commands_during_a_commit},
    {"commands_are_registered_by_their_owners", test_commands_are_registered_by_their_owners},
    {"reset_command_sets_watchdog_flag", test_reset_command_sets_watchdog_flag},
    {"answers_use_the_reserve_when_frames_cannot", test_answers_use_the_reserve_when_frames_cannot},
    {"led_patterns_timing", test_led_patterns_timing},
    {"led_power_limit", test_led_power_limit},
};

int main(int argc, char **argv)
{
    int ran = 0;
    for (size_t i = 0; i < sizeof TESTS / sizeof TESTS[0]; i++) {
        if (argc > 1 && strstr(TESTS[i].name, argv[1]) == NULL)
            continue;
        int before = failures;
        TESTS[i].fn();
        ran++;
        if (failures != before) {
            tests_failed++;
            printf("FAIL %s\n", TESTS[i].name);
        } else {
            printf("ok   %s\n", TESTS[i].name);
        }
    }
    printf("kaeshi-unit: %d passed, %d failed (%d checks)\n", ran - tests_failed, tests_failed,
           checks);
    return tests_failed ? 1 : 0;
}
