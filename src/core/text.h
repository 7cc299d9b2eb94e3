// Text helpers shared by the format readers: numbers (text_decimal.h), names, messages.
#pragma once

#include "core/text_decimal.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace meshport::text {

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
