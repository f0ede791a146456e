#include "crc16.h"

#include "protocol_gen.h"

/* Byte-at-a-time form of the 0x1021 polynomial: no table (flash is cheap but RAM is not)
 * and no bit loop (a RAW frame is 136 bytes checked at 100 Hz). */
#ifdef __AVR__
#include <util/crc16.h>
/* avr-libc's hand-written form of the same polynomial (MSB first, 0x1021) */
uint16_t crc16_update(uint16_t crc, uint8_t byte) { return _crc_xmodem_update(crc, byte); }
#else
uint16_t crc16_update(uint16_t crc, uint8_t byte)
{
    crc = (uint16_t)((crc >> 8) | (crc << 8));
    crc ^= byte;
    crc ^= (uint16_t)((crc & 0xFF) >> 4);
    crc ^= (uint16_t)(crc << 12);
    crc ^= (uint16_t)((crc & 0xFF) << 5);
    return crc;
}
#endif

uint16_t crc16(const uint8_t *data, uint16_t len)
{
    uint16_t crc = KP_CRC_INIT;
    while (len--)
        crc = crc16_update(crc, *data++);
    return crc ^ KP_CRC_XOROUT;
}
