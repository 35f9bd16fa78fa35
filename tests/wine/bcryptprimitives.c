/*
 * Test-only stand-in for Windows' bcryptprimitives.dll, which Wine 8 lacks. Rust's
 * standard library imports ProcessPrng from it (every Windows 10 and later has it); this
 * forwards to RtlGenRandom (advapi32's SystemFunction036), which Wine has. It is placed
 * beside the test programs that run the committed ranking_elo.dll under wine64, and is
 * never shipped.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x40000000u ? 0x40000000u : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
