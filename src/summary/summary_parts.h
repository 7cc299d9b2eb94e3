// The per-format parts of summary.h's report (src/summary_<format>.cpp), and helpers they share.
#pragma once

#include <meshport/summary.h>

#include <fmt/format.h>

#include <string>

namespace meshport::summary_parts {

// A float as the double with the same shortest decimal form, so that JSON shows 1.5 rather than
// the float's exact binary expansion; -0 becomes 0.
double shortest(float v);
nlohmann::json shortest3(const std::array<float, 3>& v);

// Appends fmt::format(f, args...) to `out`.
template <class... Args>
void put(std::string& out, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
}

PieSummary summarize_pie(const Scene& scene);
nlohmann::json pie_json(const PieSummary& pie);
void pie_text(const PieSummary& pie, std::string& out);

QmshSummary summarize_qmsh(const QmshBinaryData& qmsh);
nlohmann::json qmsh_json(const QmshSummary& qmsh);
void qmsh_text(const QmshSummary& qmsh, std::string& out);

QmshTmpSummary summarize_qmsh_tmp(const QmshTmpData& tmp);
nlohmann::json qmsh_tmp_json(const QmshTmpSummary& tmp);
void qmsh_tmp_text(const QmshTmpSummary& tmp, std::string& out);

ModeDefSummary summarize_modedef(const ModeDefData& modedef);
nlohmann::json modedef_json(const ModeDefSummary& modedef);
void modedef_text(const ModeDefSummary& modedef, std::string& out);

// summary_textures.cpp: the "textures:" section (Summary::textures).
nlohmann::json textures_json(const Summary& s);
void textures_text(const Summary& s, std::string& out);

}  // namespace meshport::summary_parts
