/* A stand-in for Windows' bcryptprimitives.dll, for the wine prefix of the
 * release's smoke test only (scripts/setup-cross.sh builds it with MinGW's
 * gcc and puts it in the prefix's system32; nothing ships it).
 *
 * Rust's standard library (1.78 and later) takes its random numbers from
 * ProcessPrng in bcryptprimitives.dll, which every Windows 10 and later
 * has; Debian 12's wine (8.0) has no such DLL, so without this no Rust
 * binary for Windows starts under it ("Library bcryptprimitives.dll ...
 * not found"). ProcessPrng here fills the buffer from RtlGenRandom
 * (advapi32's SystemFunction036), which wine does have; like Windows'
 * own, it never fails for a valid buffer. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
