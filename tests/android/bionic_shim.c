/*
 * Test only: lets an Android library (built for bionic) load and run under glibc, as
 * "libc.so", so that `cargo xtask test` can run the shipped Android libraries' machine code
 * on Linux (natively for x86_64, under qemu-user for arm64-v8a and armeabi-v7a). It is
 * preloaded (LD_PRELOAD), so its definitions come before glibc's; everything else the library
 * imports from libc.so, libm.so and libdl.so is glibc's function of the same name and
 * meaning. This is a stand-in for bionic, not bionic.
 */
#include <errno.h>
#include <stddef.h>

/* bionic's errno accessor (glibc's is __errno_location). */
int *__errno(void) { return &errno; }

/* bionic's strerror_r is the POSIX one (returns int); glibc's plain symbol is the GNU one
 * (returns char *), its POSIX one is __xpg_strerror_r. */
int __xpg_strerror_r(int error, char *buffer, size_t length);
int strerror_r(int error, char *buffer, size_t length) { return __xpg_strerror_r(error, buffer, length); }

/* bionic's FILE __sF[3] (stdin, stdout, stderr; 152 bytes each on LP64, 84 on ILP32):
 * libunwind prints to &__sF[2] only when it aborts. */
char __sF[3 * (sizeof(long) == 8 ? 152 : 84)];
