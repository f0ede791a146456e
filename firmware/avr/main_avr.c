/* Firmware entry point on the ATmega2560. */
#include "../src/app.h"

int main(void)
{
    app_init();
    for (;;)
        app_poll();
}
