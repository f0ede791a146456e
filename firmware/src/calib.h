#ifndef KAESHI_CALIB_H
#define KAESHI_CALIB_H

#include <stdint.h>

#include "classify.h"

/* Per-sensor calibration: the active set used by the classifier, loaded from EEPROM at
 * boot (defaults when EEPROM holds no valid set), and a staging set filled by WRITE_CAL
 * and stored by COMMIT_CAL. */
void calib_init(void);

const cal_record_t *calib_record(uint8_t square);
uint8_t calib_valid(void);     /* the active set came from EEPROM with a good CRC */
uint16_t calib_crc(void);      /* CRC of the active set, 0 when not valid */

/* WRITE_CAL payload -> KP_STATUS_*; nothing is staged unless the whole payload is good. */
uint8_t calib_stage(const uint8_t *payload, uint8_t len);

/* COMMIT_CAL: KP_STATUS_BAD_VALUE if some record was not written since the last commit,
 * else KP_STATUS_OK and the EEPROM write starts (calib_busy() until it is verified). */
uint8_t calib_commit_start(void);
uint8_t calib_busy(void);

/* Advance the EEPROM write by at most one byte. Returns 0 while nothing finished, or
 * 1 + KP_STATUS_* once when a commit finished (OK, or EEPROM_FAILURE if the read-back
 * differed). */
uint8_t calib_poll(void);

uint32_t calib_board_id(void);

#endif
