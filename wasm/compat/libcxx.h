// What Emscripten 3.1.6's libc++ (LLVM 14's) lacks of the C++20 library meshport uses, forced into
// every source of the WebAssembly build by scripts/build-wasm.sh (-include). Other builds never
// see this file.
//  - std::bit_cast: Clang's __builtin_bit_cast, which later libc++ versions implement it with.
//  - std::to_chars and std::from_chars of float and double: declared here, defined in
//    wasm/compat/charconv.cpp with the results of GCC's libstdc++, which the native builds use,
//    so that every number written is the same text (tests/wasm compare the outputs byte for byte).
#pragma once
#ifdef __cplusplus
#include <version>
#include <bit>
#include <charconv>
#include <type_traits>
#if !defined(__cpp_lib_bit_cast)
namespace std {
template <class To, class From>
  requires(sizeof(To) == sizeof(From) && is_trivially_copyable_v<To> && is_trivially_copyable_v<From>)
constexpr To bit_cast(const From& from) noexcept {
  return __builtin_bit_cast(To, from);
}
}  // namespace std
#endif
#if !defined(__cpp_lib_to_chars)
namespace std {
// The shortest text that reads back as the value (fixed or scientific, whichever is shorter).
to_chars_result to_chars(char* first, char* last, float value);
to_chars_result to_chars(char* first, char* last, double value);
// printf's %e, %f, %g or %a with `precision`.
to_chars_result to_chars(char* first, char* last, float value, chars_format fmt, int precision);
to_chars_result to_chars(char* first, char* last, double value, chars_format fmt, int precision);
from_chars_result from_chars(const char* first, const char* last, float& value,
                             chars_format fmt = chars_format::general);
from_chars_result from_chars(const char* first, const char* last, double& value,
                             chars_format fmt = chars_format::general);
}  // namespace std
#endif
#endif
