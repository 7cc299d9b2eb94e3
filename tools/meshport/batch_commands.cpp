// `meshport batch`, `validate` and `merge-reports` (batch_commands.h).
#include "batch_commands.h"

#include "interrupt.h"
#include "terminal.h"

#include "memory_option.h"
#include "progress.h"
#include "text_output.h"
#include "../../src/core/utf8_path.h"

#include <meshport/batch.h>
#include <meshport/profiles.h>

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace meshport::cli {

namespace {

void add_common(CLI::App* cmd, BatchArgs& a) {
  const char* g = "Batch";
  cmd->add_option("-j,--jobs", a.jobs, "Threads (default: all cores)")->type_name("N")->group(g);
  cmd->add_flag("--fail-fast", a.fail_fast, "Stop starting files after the first failure")->group(g);
  cmd->add_flag("--keep-going", a.keep_going, "Go on after a failure (the default)")->group(g);
  cmd->add_option("--report", a.report, "Write a JSON report: per file status, diagnostics, counts, bytes, ms")
      ->type_name("FILE.json")
      ->group(g);
  cmd->add_option("--shard", a.shard,
                  "Do part K of N (K from 0) of the files, chosen by path hash; `auto` reads a Kubernetes Indexed "
                  "Job or a Slurm job array (docs/batch.md)")
      ->type_name("K/N|auto")
      ->group(g);
  cmd->add_option("--progress", a.progress, "Progress output: auto (a bar on a terminal, else lines), bar, lines, none")
      ->check(CLI::IsMember({"auto", "bar", "lines", "none"}))
      ->group(g);
  cmd->add_option("--progress-interval", a.progress_interval, "Seconds between progress lines when not a bar")
      ->check(CLI::NonNegativeNumber)
      ->type_name("S")
      ->group(g);
  cmd->add_flag("-q,--quiet", a.quiet, "Print only failures and the summary")->group(g);
  cmd->add_flag("-v,--verbose", a.verbose, "Print a line for every file")->group(g);
}

std::string read_text(const std::string& path) {
  std::ifstream f(utf8_path(path), std::ios::binary);
  if (!f) fail(path, "cannot open it");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

CLI::App* add_batch_command(CLI::App& app, BatchArgs& a, const std::string& from_help, const std::string& to_help) {
  auto* cmd = app.add_subcommand("batch", "Convert every model under files, folders and globs, on several threads");
  cmd->footer(
      "Each model becomes OUTDIR/<its path below the input folder> with the new extension; animation-only IQM/IQE\n"
      "files attach to their mesh (docs/batch.md). Outputs newer than their inputs and options are skipped.\n"
      "Exit 0 when every file converted, 1 when one failed, 130 when interrupted. Example:\n"
      "  meshport batch data/base/components -o out --to glb --report out/report.json");
  cmd->add_option("inputs", a.inputs, "Model files, folders (searched recursively) and globs ('**' crosses folders)")
      ->required();
  cmd->add_option("-o,--output", a.output_dir, "Output folder (the input tree is mirrored in it)")->required();
  cmd->add_flag("--force", a.force, "Convert even outputs that are up to date")->group("Batch");
  cmd->add_flag("--no-copy-textures", a.no_copy_textures,
                "Do not copy the textures models use into the output tree (outputs other than glTF)")
      ->group("Batch");
  add_common(cmd, a);
  add_conversion_options(cmd, a.conversion, from_help, to_help);
  std::string batch_to = to_help;
  if (const size_t at = batch_to.find(" (default: by extension)"); at != std::string::npos) batch_to.resize(at);
  cmd->get_option("--to")->required()->description(batch_to + " (required: every output gets its extension)");
  return cmd;
}

CLI::App* add_validate_command(CLI::App& app, BatchArgs& a) {
  auto* cmd = app.add_subcommand("validate", "Check model files, folders and globs; print diagnostics (exit 1 on errors)");
  cmd->footer(
      "Reads each model, reports what readers and writers would refuse or drop, and the rules of the engine profiles\n"
      "given with --profile. Example:\n"
      "  meshport validate data/base --profile wz2100 --report report.json");
  cmd->add_option("files", a.inputs, "Model files, folders (searched recursively) and globs")->required();
  cmd->add_option("--from", a.from, "Input format (default: by extension)");
  add_max_memory_option(cmd, a.conversion.max_memory);
  cmd->add_flag("--strict", a.strict, "Count warnings as errors");
  cmd->add_flag("--json", a.json, "Print the JSON report on standard output");
  std::string names;
  for (const ProfileInfo& p : profiles()) names += fmt::format("\n  {}: {}", p.name, p.description);
  cmd->add_option("--profile", a.profiles,
                  "Also check the limits and rules a game engine enforces when it loads a model (repeatable; "
                  "docs/profiles.md):" + names)
      ->type_name("NAME")
      ->allow_extra_args(false);
  add_common(cmd, a);
  return cmd;
}

CLI::App* add_merge_command(CLI::App& app, MergeArgs& a) {
  auto* cmd = app.add_subcommand("merge-reports", "Join the JSON reports of a batch's shards into one");
  cmd->add_option("reports", a.reports, "Reports written with --report by each shard")->required();
  cmd->add_option("-o,--output", a.output, "The merged report (default: standard output)");
  return cmd;
}

int run_batch(const BatchArgs& a, BatchTask task) {
  BatchOptions o;
  o.task = task;
  o.inputs = a.inputs;
  o.jobs = a.jobs;
  o.fail_fast = a.fail_fast && !a.keep_going;
  o.strict = a.strict;
  o.profiles = a.profiles;
  if (!a.shard.empty()) o.shard = parse_shard(a.shard);
  if (task == BatchTask::Convert) {
    o.convert = conversion_options(a.conversion);
    o.from = o.convert.read.format;
    o.to = o.convert.write.format;
    o.output_dir = a.output_dir;
    o.force = a.force;
    o.copy_textures = !a.no_copy_textures;
  } else {
    o.from = parse_format(a.from, "--from");
    o.convert.read.max_memory = parse_max_memory(a.conversion.max_memory);
  }
  ProgressStyle style;
  style.terminal = a.progress == "bar" || (a.progress == "auto" && is_terminal(stderr));
  style.verbose = a.verbose;
  style.quiet = a.quiet;
  style.interval = a.progress == "none" ? 1e300 : a.progress_interval;
  style.status_to_stdout = task == BatchTask::Validate && !a.json;
  ProgressPrinter printer(task, style, stderr);
  if (a.progress != "none" || a.verbose || !a.quiet) o.progress = [&](const BatchProgress& p) { printer(p); };
  BatchResult r;
  {
    InterruptScope interrupt("finishing the files in progress");
    o.cancel = interrupt.flag();
    r = batch(o);
  }
  printer.finish();
  if (!r.error.empty()) fmt::print(stderr, "{}\n", r.error);
  fmt::print(stderr, "{}\n", summary_line(r));
  if (!a.report.empty()) write_text(a.report, report_json(r));
  if (a.json) fmt::print("{}", report_json(r));
  return r.cancelled ? 130 : r.exit_code();
}

int run_merge(const MergeArgs& a) {
  std::vector<BatchResult> reports;
  for (const std::string& f : a.reports) reports.push_back(parse_report(read_text(f), f));
  const BatchResult merged = merge_reports(reports, a.reports);
  if (a.output.empty()) fmt::print("{}", report_json(merged));
  else write_text(a.output, report_json(merged));
  fmt::print(stderr, "{}\n", summary_line(merged));
  return merged.exit_code();
}

}  // namespace meshport::cli
