// Angles computed the same, bit for bit, on every platform meshport is built for (GCC and glibc
// on Linux, MinGW-w64 on Windows, Emscripten's musl in WebAssembly): only + - * / of IEEE doubles,
// which every one of them rounds the same way, never the C library's atan2, whose last bit
// differs between those libraries (in about 0.3% of atan2f calls between glibc and musl).
// angle.cpp is compiled with -ffp-contract=off (CMakeLists.txt), so no build fuses a multiply and
// an add there.
#pragma once

namespace meshport {

// atan2(y, x) in radians, in [-pi, pi]: within 3 units in the last place of double of the true
// angle (tests/test_portable_angle.cpp checks it against std::atan2 and exact values), so
// rounded to float it is the correctly rounded float angle but where the true angle lies within
// a few 1e-16 of a rounding boundary. The special cases are C's: atan2(+-0, x) is +-0 for x > 0 or +0,
// +-pi for x < 0 or -0; +-pi/2 for y != 0 and x = 0; infinities give multiples of pi/4; NaN in,
// NaN out. Exact at 0, pi/4, pi/2, 3pi/4 and pi (the doubles nearest them).
double portable_atan2(double y, double x);

}  // namespace meshport
