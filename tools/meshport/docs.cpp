// `meshport gendocs man|bash`: walks the App's commands and options (docs.h).
#include "docs.h"
#include "../../src/core/utf8_path.h"

#include <meshport/meshport.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <vector>

namespace meshport::cli {

namespace {

// The installed program's name (the App's own name is argv[0] once parsed).
constexpr const char* kName = "meshport";

using Commands = std::vector<const CLI::App*>;
using Options = std::vector<const CLI::Option*>;

// Commands and options shown in --help: a hidden one has an empty group.
Commands visible_commands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* c) { return !c->get_group().empty(); });
}
Options visible_options(const CLI::App& app) {
  return app.get_options([](const CLI::Option* o) { return !o->get_group().empty(); });
}

// A flag expects no value (CLI11 sets expected(0) on flags).
bool takes_value(const CLI::Option& o) {
  return o.get_positional() || (o.get_expected_max() != 0 && o.get_type_size() != 0);
}
bool repeats(const CLI::Option& o) { return o.get_items_expected_max() > 1; }

std::vector<std::string> flag_names(const CLI::Option& o) {
  std::vector<std::string> names;
  for (const std::string& s : o.get_snames()) names.push_back("-" + s);
  for (const std::string& l : o.get_lnames()) names.push_back("--" + l);
  return names;
}

std::string value_name(const CLI::Option& o) {
  const std::string t = o.get_type_name();
  return t.empty() ? "VALUE" : t;
}

// roff text: backslashes and hyphens escaped (so that examples copy as typed), and a line
// starting with a control character made literal.
std::string roff(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

// "\fB\-o\fR, \fB\-\-output\fR \fITEXT\fR"
std::string man_option_label(const CLI::Option& o) {
  if (o.get_positional()) return "\\fI" + roff(o.get_name(true)) + "\\fR" + (repeats(o) ? "..." : "");
  std::string label;
  for (const std::string& n : flag_names(o)) label += (label.empty() ? "" : ", ") + ("\\fB" + roff(n) + "\\fR");
  if (takes_value(o)) label += " \\fI" + roff(value_name(o)) + "\\fR" + (repeats(o) ? "..." : "");
  return label;
}

// "meshport convert \-o \fITEXT\fR [\fIoptions\fR] \fIinputs\fR..." from the required options
// and the positionals.
std::string man_synopsis(const CLI::App& cmd, const std::string& prefix) {
  std::string s = "\\fB" + roff(prefix) + "\\fR";
  for (const CLI::Option* o : visible_options(cmd))
    if (!o->get_positional() && o->get_required()) s += " " + man_option_label(*o);
  s += " [\\fIoptions\\fR]";
  for (const CLI::Option* o : visible_options(cmd))
    if (o->get_positional()) s += o->get_required() ? " " + man_option_label(*o) : " [" + man_option_label(*o) + "]";
  return s;
}

void man_options(std::string& out, const CLI::App& cmd) {
  const Options options = visible_options(cmd);
  std::vector<std::string> groups;  // in the order of their first option, as --help lists them
  for (const CLI::Option* o : options)
    if (std::find(groups.begin(), groups.end(), o->get_group()) == groups.end()) groups.push_back(o->get_group());
  for (const std::string& g : groups) {
    if (groups.size() > 1) out += ".PP\n\\fI" + roff(g) + "\\fR\n";
    for (const CLI::Option* o : options) {
      if (o->get_group() != g) continue;
      out += ".TP\n" + man_option_label(*o) + "\n";
      out += o->get_description().empty() ? std::string("\\&") : roff(o->get_description());
      out += "\n";
    }
  }
}

// A footer keeps its line breaks: its examples are lines to type.
void man_footer(std::string& out, const CLI::App& cmd) {
  std::string footer = cmd.get_footer();
  while (!footer.empty() && (footer.back() == '\n' || footer.front() == '\n'))
    footer.erase(footer.back() == '\n' ? footer.size() - 1 : 0, 1);
  if (footer.empty()) return;
  out += ".PP\n.nf\n" + roff(footer) + "\n.fi\n";
}

std::string join(const std::vector<std::string>& words, std::string_view separator = " ") {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : std::string(separator)) + w;
  return s;
}

// Format names for --from (readable) and --to (writable) and their variants (--from-a, ...).
std::vector<std::string> format_words(const CLI::Option& o) {
  bool from = false, to = false;
  for (const std::string& l : o.get_lnames()) {
    from = from || l.rfind("from", 0) == 0;
    to = to || l == "to";
  }
  std::vector<std::string> words;
  if (!from && !to) return words;
  for (const FormatInfo& f : formats())
    if (from ? f.can_read : f.can_write) words.emplace_back(f.name);
  return words;
}

// Every environment variable meshport reads (tests/test_cli_docs.cpp checks the sources name no
// other), for the man page's ENVIRONMENT section.
std::string environment_text() {
  static const std::pair<const char*, const char*> vars[] = {
      {"SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP",
       "batch --shard auto in a Slurm job array: this task converts shard (ID - MIN) / STEP of COUNT."},
      {"JOB_COMPLETION_INDEX, MESHPORT_SHARD_COUNT",
       "batch --shard auto in a Kubernetes Indexed Job: shard JOB_COMPLETION_INDEX of MESHPORT_SHARD_COUNT, which "
       "must be set to the Job's completions (Kubernetes does not give the count)."},
      {"MESHPORT_CHROMIUM", "thumbnail: the Chromium binary, unless --chromium is given (default: chromium)."},
      {"TMPDIR", "thumbnail: where Chromium's temporary profile folder is made (default: /tmp)."},
      {"MESHPORT_HUGE_PAGES",
       "1: large blocks of memory are asked to be backed by huge pages (fewer page faults; faster on some machines, "
       "slower on virtual machines that give free memory back to their host). Default: off."},
  };
  std::string out;
  for (const auto& [names, what] : vars) out += ".TP\n.B " + roff(names) + "\n" + roff(what) + "\n";
  return out;
}

}  // namespace

std::string man_page(const CLI::App& app, std::string_view version) {
  std::string description = app.get_description();
  const std::string name = kName;
  if (description.rfind(name + ": ", 0) == 0) description.erase(0, name.size() + 2);
  std::string upper = name;
  for (char& c : upper)
    if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');

  std::string out = fmt::format(".\\\" Generated by `{} gendocs man` from the command line's own options.\n", name);
  out += fmt::format(".TH {} 1 \"\" \"{} {}\" \"User Commands\"\n", upper, name, roff(version));
  out += ".SH NAME\n" + roff(name) + " \\- " + roff(description) + "\n";
  out += ".SH SYNOPSIS\n";
  const Commands commands = visible_commands(app);
  for (const CLI::App* c : commands) out += man_synopsis(*c, name + " " + c->get_name()) + "\n.br\n";
  out += "\\fB" + roff(name) + "\\fR \\fB\\-\\-version\\fR\n";
  std::string sentence = description;
  if (!sentence.empty() && sentence[0] >= 'a' && sentence[0] <= 'z') sentence[0] = char(sentence[0] - 'a' + 'A');
  out += ".SH DESCRIPTION\n" + roff(sentence) + ".\n";
  out += fmt::format("Each command has its own options; \\fB{} \\fIcommand\\fB \\-\\-help\\fR lists them.\n", roff(name));
  out += ".SH OPTIONS\n";
  man_options(out, app);
  out += ".SH COMMANDS\n";
  for (const CLI::App* c : commands) {
    out += ".SS " + roff(c->get_name()) + "\n";
    out += man_synopsis(*c, name + " " + c->get_name()) + "\n.PP\n";
    out += roff(c->get_description()) + "\n";
    man_footer(out, *c);
    man_options(out, *c);
  }
  out += ".SH EXIT STATUS\n0 success; 1 failure (a file could not be read or written, a batch file failed, "
         "validate found errors, diff found differences); 2 usage error (an unknown command or option, a missing "
         "argument; diff: a file that cannot be read).\n";
  out += ".SH ENVIRONMENT\n" + environment_text();
  out += ".SH SEE ALSO\nThe README and the docs/ folder of meshport's sources describe each format and command.\n";
  return out;
}

std::string bash_completion(const CLI::App& app) {
  const std::string name = kName;
  std::vector<std::string> command_names;
  for (const CLI::App* c : visible_commands(app)) command_names.push_back(c->get_name());

  // Per command (the empty name: before one): every option, those followed by a value, those
  // whose value is a folder, and the words that complete each option's value.
  auto describe = [](const CLI::App& cmd, const std::string& label) {
    std::vector<std::string> all, values, dirs;
    std::string cases;
    for (const CLI::Option* o : visible_options(cmd)) {
      if (o->get_positional()) continue;
      const std::vector<std::string> names = flag_names(*o);
      all.insert(all.end(), names.begin(), names.end());
      if (!takes_value(*o)) continue;
      const std::vector<std::string> words = format_words(*o);
      if (!words.empty())
        cases += fmt::format("        {}) COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); return ;;\n",
                             join(names, "|"), join(words));
      else if (o->get_type_name() == "DIR")
        dirs.insert(dirs.end(), names.begin(), names.end());
      else
        values.insert(values.end(), names.begin(), names.end());
    }
    std::string s = fmt::format("    {})\n      opts=\"{}\"\n", label, join(all));
    if (!cases.empty() || !dirs.empty() || !values.empty()) {
      s += "      case $prev in\n" + cases;
      if (!dirs.empty()) s += fmt::format("        {}) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n", join(dirs, "|"));
      if (!values.empty())
        s += fmt::format("        {}) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", join(values, "|"));
      s += "      esac\n";
    }
    return s + "      ;;\n";
  };

  std::string out = fmt::format("# bash completion for {0} (generated by `{0} gendocs bash` from the command line's own options)\n", name);
  out += fmt::format("_{}() {{\n", name);
  out += "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= opts= i\n";
  out += "  for ((i = 1; i < COMP_CWORD; i++)); do\n";
  out += "    case ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac\n";
  out += "  done\n";
  out += "  case $cmd in\n";
  out += describe(app, "\"\"");
  for (const CLI::App* c : visible_commands(app)) out += describe(*c, c->get_name());
  out += "    *) return ;;\n";
  out += "  esac\n";
  out += "  if [[ $cur == -* ]]; then\n";
  out += "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n";
  out += "  elif [[ -z $cmd ]]; then\n";
  out += fmt::format("    COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))\n", join(command_names));
  out += "  else\n";
  out += "    COMPREPLY=($(compgen -f -- \"$cur\"))\n";
  out += "  fi\n";
  out += "}\n";
  out += fmt::format("complete -o filenames -o bashdefault -F _{0} {0}\n", name);
  return out;
}

CLI::App* add_docs_command(CLI::App& app, DocsArgs& args) {
  auto* cmd = app.add_subcommand("gendocs", "Write the man page or the bash completion (used by the build)");
  cmd->group("");  // hidden
  cmd->add_option("kind", args.kind, "man or bash")->required()->check(CLI::IsMember({"man", "bash"}));
  cmd->add_option("-o,--output", args.output, "Output file (default: standard output)");
  return cmd;
}

int run_docs(const CLI::App& app, const DocsArgs& args, std::string_view version) {
  const std::string text = args.kind == "man" ? man_page(app, version) : bash_completion(app);
  if (args.output.empty()) {
    fmt::print("{}", text);
    return 0;
  }
  std::ofstream f(utf8_path(args.output), std::ios::binary);
  f << text;
  f.close();
  if (!f) {
    fmt::print(stderr, "{}: error: cannot write\n", args.output);
    return 1;
  }
  return 0;
}

}  // namespace meshport::cli
