// `torch2onnx zoo merge RESULT.json...`: joins the --json results of zoo shards (run on several
// machines with --shard I/N) into one JSON, JUnit and markdown report, and says which models are
// missing (a shard lost, a run interrupted) and which were run twice (overlapping shards).
#include "apps/cli_parse.h"
#include "apps/zoo_results.h"
#include "builder/error.h"
#include "builder/file_io.h"
#include "builder/printable.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace fs = std::filesystem;

namespace torch2onnx::zoo {
namespace {

struct MergeOptions {
  std::vector<std::string> files;
  std::string manifest, models, json, junit, report;
  int opset = 0;
};

const char *kMergeFooter = R"(
Each RESULT.json is the --json of a `torch2onnx zoo ... --shard I/N` run (or of an earlier
merge). With --manifest, the merged models are compared with the manifest's jobs (after --opset,
as the shards ran it); without it, with what the files record: their shard I/N and the jobs each
shard planned. A model in two files is reported as an overlap and the first file's result kept.

Examples:
  torch2onnx zoo merge shard-*.json --manifest models/zoo/torchvision.yaml \
      --json zoo.json --junit zoo.xml --report zoo.md

Exit status: 0 when every model is there once and none failed unexpectedly; 1 when a model failed
unexpectedly, is missing or is in two files; 2 for a bad command line or an unreadable file.
)";

std::optional<int> parse_merge(int argc, char **argv, MergeOptions &o) {
  CLI::App app{"torch2onnx zoo merge: join the results of zoo shards into one report.\n\n"
               "Usage: torch2onnx zoo merge RESULT.json... [--manifest M.yaml] [--json F]\n"
               "                            [--junit F.xml] [--report F.md]"};
  app.footer(kMergeFooter);
  app.add_option("results", o.files, "the shards' --json files")->required();
  app.add_option("--manifest", o.manifest, "check the models against this manifest's jobs");
  app.add_option("--models", o.models, "the manifest's model folder, as the shards had it");
  app.add_option("--opset", o.opset, "the --opset the shards ran with");
  app.add_option("--json", o.json, "write the merged results as JSON here");
  app.add_option("--junit", o.junit, "write the merged results as JUnit XML here");
  app.add_option("--report", o.report, "write a markdown table of the merged results here");
  if (auto rc = parse_flags(app, argc, argv, "zoo merge"))
    return *rc;
  return std::nullopt;
}

std::string json_string(const std::string &s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

struct Merged {
  std::vector<StoredResult> models;     // in manifest order when known
  std::vector<std::string> missing;     // "NAME (why)"
  std::vector<std::string> overlapping; // "NAME: in A (pass) and B (fail); A's kept"
  std::vector<std::string> unknown;     // in a file, not in the --manifest
  std::string manifest;
};

// Joins the files' models; the first file holding a model wins.
void join(const std::vector<StoredRun> &runs, Merged &m) {
  std::map<std::string, std::pair<size_t, size_t>> where; // name -> (run, model)
  for (size_t f = 0; f < runs.size(); ++f)
    for (size_t k = 0; k < runs[f].models.size(); ++k) {
      const StoredResult &r = runs[f].models[k];
      auto [it, fresh] = where.insert({r.result.job.name, {f, k}});
      if (fresh) {
        m.models.push_back(r);
        continue;
      }
      const StoredResult &first = runs[it->second.first].models[it->second.second];
      m.overlapping.push_back(fmt::format("{}: in {} ({}) and {} ({}); the first is kept",
                                          r.result.job.name, runs[it->second.first].path,
                                          status_name(first.result.status), runs[f].path,
                                          status_name(r.result.status)));
    }
}

// Without --manifest: the shards the files say exist, and the jobs each planned.
void check_shards(const std::vector<StoredRun> &runs, Merged &m) {
  std::set<std::string> have;
  for (const auto &r : m.models)
    have.insert(r.result.job.name);
  std::map<int, std::set<int>> shards; // N -> the I given
  for (const auto &run : runs) {
    if (m.manifest.empty())
      m.manifest = run.manifest;
    else if (!run.manifest.empty() && run.manifest != m.manifest)
      m.missing.push_back(fmt::format("(cannot tell: {} is of manifest {}, others of {})", run.path,
                                      run.manifest, m.manifest));
    if (run.shard_count > 0)
      shards[run.shard_count].insert(run.shard_index);
    for (const auto &name : run.planned)
      if (!have.count(name))
        m.missing.push_back(
            fmt::format("{} (planned in {}, no result: was the run stopped?)", name, run.path));
  }
  if (shards.size() > 1)
    m.missing.push_back("(cannot tell: the files come from runs split into different numbers "
                        "of shards; give --manifest)");
  for (const auto &[n, given] : shards)
    for (int i = 1; i <= n; ++i)
      if (!given.count(i))
        m.missing.push_back(fmt::format("every model of shard {}/{} (no file of it given)", i, n));
}

// With --manifest: its jobs against the results; results in manifest order.
void check_manifest(const MergeOptions &o, Merged &m) {
  Manifest man = load_manifest(o.manifest, o.models, o.opset);
  m.manifest = o.manifest;
  std::map<std::string, StoredResult> by_name;
  for (auto &r : m.models)
    by_name.emplace(r.result.job.name, std::move(r));
  std::vector<StoredResult> ordered;
  for (size_t k = 0; k < man.jobs.size(); ++k) {
    auto it = by_name.find(man.jobs[k].name);
    if (it == by_name.end()) {
      m.missing.push_back(fmt::format("{} (manifest line {})", man.jobs[k].name, man.jobs[k].line));
      continue;
    }
    it->second.index = static_cast<long long>(k);
    ordered.push_back(std::move(it->second));
    by_name.erase(it);
  }
  for (auto &[name, r] : by_name) {
    m.unknown.push_back(name);
    ordered.push_back(std::move(r));
  }
  m.models = std::move(ordered);
}

std::string merged_json(const Merged &m, const std::vector<Result> &results,
                        const std::vector<std::string> &files) {
  JsonExtra extra;
  extra.model = [&](size_t i) {
    const StoredResult &s = m.models[i];
    return fmt::format(
        ", \"index\": {}, \"timeout\": {}, \"fingerprint\": {}, \"binary\": {}{}",
        s.index < 0 ? "null" : std::to_string(s.index), s.result.job.timeout,
        json_string(s.fingerprint), json_string(s.binary),
        s.resumed_from.empty() ? "" : ", \"resumed_from\": " + json_string(s.resumed_from));
  };
  auto list = [](const std::vector<std::string> &v) {
    std::vector<std::string> q;
    for (const auto &s : v)
      q.push_back(json_string(s));
    return fmt::format("[{}]", fmt::join(q, ", "));
  };
  extra.top = fmt::format(",\n  \"format\": \"torch2onnx-zoo-results\",\n  \"manifest\": {},\n"
                          "  \"merged_from\": {},\n  \"missing\": {},\n  \"overlapping\": {},\n"
                          "  \"not_in_manifest\": {}",
                          json_string(m.manifest), list(files), list(m.missing),
                          list(m.overlapping), list(m.unknown));
  return json_report(results, extra);
}

std::string problems_markdown(const Merged &m) {
  std::string o;
  auto section = [&](const char *title, const std::vector<std::string> &items) {
    if (items.empty())
      return;
    o += fmt::format("\n**{}** ({}):\n\n", title, items.size());
    for (const auto &s : items)
      o += "- " + s + "\n";
  };
  section("Missing", m.missing);
  section("In two files", m.overlapping);
  section("Not in the manifest", m.unknown);
  return o;
}

// Prints the summary and the problems; returns the exit status.
int summarize_merge(const Merged &m, const std::vector<Result> &results, size_t files) {
  std::map<std::string, int> counts;
  int unexpected = 0;
  for (const auto &r : results) {
    ++counts[status_name(r.status)];
    unexpected += is_unexpected_failure(r.status);
  }
  std::vector<std::string> parts;
  for (const auto &[k, v] : counts)
    parts.push_back(fmt::format("{} {}", v, k));
  fmt::print("zoo merge: {} file(s), {} model(s): {}\n", files, results.size(),
             parts.empty() ? std::string("none") : fmt::format("{}", fmt::join(parts, ", ")));
  for (const auto &r : results)
    if (is_unexpected_failure(r.status))
      fmt::print("  {} {}: {}\n", status_name(r.status), printable(r.job.name),
                 printable(r.first_error));
  auto print = [](const char *what, const std::vector<std::string> &items, const char *hint) {
    if (items.empty())
      return;
    fmt::print(stderr, "torch2onnx: error: {} ({}):\n", what, items.size());
    for (const auto &s : items)
      fmt::print(stderr, "  {}\n", printable(s));
    fmt::print(stderr, "  hint: {}\n", hint);
  };
  print("models missing from the merged results", m.missing,
        "run the missing shards (or models) again and merge all the files");
  print("models in more than one file", m.overlapping,
        "give each shard's file once; shards of one run (--shard I/N, same N) never overlap");
  print("models that are not in the manifest", m.unknown,
        "merge against the manifest (and --opset) the shards ran with");
  return unexpected > 0 || !m.missing.empty() || !m.overlapping.empty() || !m.unknown.empty() ? 1
                                                                                              : 0;
}

} // namespace

int run_zoo_merge(int argc, char **argv) {
  MergeOptions o;
  if (auto rc = parse_merge(argc, argv, o))
    return *rc;
  Merged m;
  std::vector<Result> results;
  try {
    std::vector<PathUse> reads, writes;
    for (const auto &f : o.files)
      reads.push_back({f, "a results file", false});
    if (!o.manifest.empty())
      reads.push_back({o.manifest, "--manifest", false});
    for (const auto &[path, flag] : {std::pair{o.json, "--json"}, std::pair{o.junit, "--junit"},
                                     std::pair{o.report, "--report"}})
      if (!path.empty())
        writes.push_back({path, flag, false});
    check_path_conflicts(reads, writes);
    std::vector<StoredRun> runs;
    for (const auto &f : o.files)
      runs.push_back(read_results(f));
    join(runs, m);
    if (o.manifest.empty()) {
      check_shards(runs, m);
      // Manifest order when every file recorded it (shards' files do), else the files' order.
      if (std::all_of(m.models.begin(), m.models.end(),
                      [](const StoredResult &r) { return r.index >= 0; }))
        std::stable_sort(
            m.models.begin(), m.models.end(),
            [](const StoredResult &a, const StoredResult &b) { return a.index < b.index; });
    } else {
      check_manifest(o, m);
    }
    for (const auto &s : m.models)
      results.push_back(s.result);
    std::string name = m.manifest.empty() ? "zoo" : fs::path(m.manifest).filename().string();
    if (!o.json.empty())
      write_file_atomic(o.json, merged_json(m, results, o.files));
    if (!o.junit.empty())
      write_file_atomic(o.junit, junit_xml(results, fs::path(name).stem().string()));
    if (!o.report.empty())
      write_file_atomic(o.report,
                        markdown_table(results, fmt::format("`torch2onnx zoo merge` of {} file(s) "
                                                            "of {}",
                                                            o.files.size(), name)) +
                            problems_markdown(m));
  } catch (const Error &e) {
    fmt::print(stderr, "torch2onnx: error: {}\n", printable(e.what(), true));
    if (!e.hint().empty())
      fmt::print(stderr, "  hint: {}\n", printable(e.hint(), true));
    return 2;
  }
  return summarize_merge(m, results, o.files.size());
}

} // namespace torch2onnx::zoo
