/*
 * The pseudo-terminal both simulators present to the host in place of the board's USB
 * serial port, with an optional stable symlink that vanishes on unplug, as a pulled
 * cable makes /dev/ttyACM0 vanish.
 */
#ifndef KAESHI_PTY_LINK_H
#define KAESHI_PTY_LINK_H

struct pty_link {
    int master_fd;         /* the simulator's end, non-blocking; -1 while unplugged */
    int slave_fd;          /* held open so the line stays raw before the host opens it */
    char name[256];        /* /dev/pts/N */
    const char *link_path; /* stable name for the host, or NULL */
};

#define PTY_LINK_INIT { -1, -1, "", 0 }

/* Make a new raw pseudo-terminal and point link_path at it; -1 on failure. */
int pty_link_open(struct pty_link *p);
/* Close both ends and remove link_path, so the host's port disappears. */
void pty_link_close(struct pty_link *p);
/* The name the host should open. */
const char *pty_link_port(const struct pty_link *p);

#endif
