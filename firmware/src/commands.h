#ifndef KAESHI_COMMANDS_H
#define KAESHI_COMMANDS_H

#include <stdint.h>

#include "protocol.h"

/* Executes host commands and answers each with an ACK carrying its SEQ and TYPE. A frame
 * with the same SEQ and TYPE as the previous command is a re-send after a lost ACK: it is
 * answered again (IDENTIFY also repeats IDENTITY) but not executed again.
 *
 * The dispatcher knows the commands of the protocol itself (IDENTIFY and the two
 * calibration commands, whose ACK waits for the EEPROM); every other command is
 * registered by the module that owns it, so this module never calls up into the main
 * loop. A type nobody registered is answered UNSUPPORTED. */

/* A command handler: executes the frame and returns a KP_STATUS_* for its ACK. */
typedef uint8_t (*command_fn)(const frame_t *frame, uint32_t now_ms);

/* flags: the device's state flags, sent in IDENTITY. */
void commands_init(uint8_t (*flags)(void));

/* Route frames of one TYPE to a handler; returns 0 if the table is full or the TYPE is
 * already taken (both are build mistakes, caught by the unit tests). */
uint8_t commands_register(uint8_t type, command_fn fn);

void commands_handle(const frame_t *frame, uint32_t now_ms);

/* Finish a COMMIT_CAL once its EEPROM write is done (its ACK waits for that). */
void commands_poll(void);

/* Queue an ACK / IDENTITY; both may use the TX reserve kept for answers. */
void commands_send_ack(uint8_t seq, uint8_t type, uint8_t status);
void commands_send_identity(void);

#endif
