#define _GNU_SOURCE
#include "pty_link.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

int pty_link_open(struct pty_link *p)
{
    p->master_fd = posix_openpt(O_RDWR | O_NOCTTY);
    if (p->master_fd < 0 || grantpt(p->master_fd) < 0 || unlockpt(p->master_fd) < 0)
        return -1;
    const char *name = ptsname(p->master_fd);
    if (!name)
        return -1;
    snprintf(p->name, sizeof p->name, "%s", name);
    /* Hold the slave open ourselves and make it raw, so nothing the host has not asked
     * for (echo, line editing) touches the bytes before the host opens it. */
    p->slave_fd = open(p->name, O_RDWR | O_NOCTTY);
    if (p->slave_fd < 0)
        return -1;
    struct termios tio;
    if (tcgetattr(p->slave_fd, &tio) == 0) {
        cfmakeraw(&tio);
        cfsetispeed(&tio, B230400);
        cfsetospeed(&tio, B230400);
        tcsetattr(p->slave_fd, TCSANOW, &tio);
    }
    fcntl(p->master_fd, F_SETFL, fcntl(p->master_fd, F_GETFL) | O_NONBLOCK);
    if (p->link_path) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.new", p->link_path);
        unlink(tmp);
        if (symlink(p->name, tmp) < 0 || rename(tmp, p->link_path) < 0)
            return -1;
    }
    return 0;
}

void pty_link_close(struct pty_link *p)
{
    if (p->link_path)
        unlink(p->link_path);
    if (p->slave_fd >= 0)
        close(p->slave_fd);
    if (p->master_fd >= 0)
        close(p->master_fd);
    p->slave_fd = p->master_fd = -1;
}

const char *pty_link_port(const struct pty_link *p)
{
    return p->link_path ? p->link_path : p->name;
}
