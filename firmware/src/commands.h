#ifndef KAESHI_COMMANDS_H
#define KAESHI_COMMANDS_H

#include <stdint.h>

#include "protocol.h"

/* Executes host commands and answers each with an ACK carrying its SEQ and TYPE. A frame
 * with the same SEQ and TYPE as the previous command is a re-send after a lost ACK: it is
 * answered again (IDENTIFY also repeats IDENTITY) but not executed again. */
void commands_init(void);
void commands_handle(const frame_t *frame, uint32_t now_ms);

/* Finish a COMMIT_CAL once its EEPROM write is done (its ACK waits for that). */
void commands_poll(void);

/* Queue an ACK / IDENTITY; both may use the TX reserve kept for answers. */
void commands_send_ack(uint8_t seq, uint8_t type, uint8_t status);
void commands_send_identity(void);

#endif
