// Number scanning shared by the text format readers (IQE, OBJ).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace meshport::text {

// Fast path for the plain decimals exporters write ("-0.70710677", "1.0024396e-06"), correctly
// rounded like std::from_chars, which the caller uses for everything else: returns false (and
// leaves `p` alone) to defer to it. On success `p` is just past the number. No leading '+', no
// "inf" / "nan", no hexadecimal: those are deferred too.
//
// With at most 15 significant digits and a power of ten up to 1e22 both are exact doubles, so
// one multiplication or division gives the correctly rounded double (Clinger). For the float
// overload, rounding that double to float differs from rounding the exact value only when the
// double is exactly halfway between two floats; that case, and results outside the normal float
// range, are deferred too.
bool fast_decimal(const char*& p, const char* end, float& out);
bool fast_decimal(const char*& p, const char* end, double& out);
// The same for integers: an optional '-' and 1 to 18 digits, exactly as std::from_chars reads
// them; false (p untouched) for anything else, such as 19 digits or more.
bool fast_integer(const char*& p, const char* end, int64_t& out);

// Whether `s` ends with `suffix`, which must be lower case (ASCII letters compared case-blind).
bool ends_with_nocase(std::string_view s, std::string_view suffix);

// Decimal digits of a 128-bit count, for messages about sizes that overflow 64 bits.
std::string u128_string(unsigned __int128 v);

// `s` with ASCII letters in lower case (file extensions, names compared case-blind).
std::string lower(std::string_view s);

// Appends f in shortest round-trip form; -0 is written as "0" (-0 == 0 in the Scene).
void append_float(std::string& out, float f);

// A name or token from a file, for a message: in double quotes, cut after `max` bytes (then
// "..."), with control bytes and bytes that are not UTF-8 written as \xNN, so binary garbage
// neither floods nor garbles a message.
std::string quoted(std::string_view s, size_t max = 40);

// A string from a file, for a message: at most `max` bytes of it (a UTF-8 sequence is not cut),
// then "... (N bytes)" when it was longer.
std::string clip(std::string_view s, size_t max = 64);

}  // namespace meshport::text
