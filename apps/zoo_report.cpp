// Reading a child's report and writing the batch results (JUnit XML, markdown, JSON).
#include "apps/report.h"
#include "apps/zoo.h"

#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

namespace torch2onnx::zoo {

const char *status_name(Status s) {
  switch (s) {
  case Status::Pass:
    return "pass";
  case Status::Fail:
    return "fail";
  case Status::Crash:
    return "crash";
  case Status::Timeout:
    return "timeout";
  case Status::ExpectedFail:
    return "xfail";
  case Status::UnexpectedPass:
    return "xpass";
  }
  return "?";
}

bool is_unexpected_failure(Status s) {
  return s == Status::Fail || s == Status::Crash || s == Status::Timeout;
}

namespace {

// The first failing check of a report's verification, as the CLI prints it.
std::string first_failed_check(const nlohmann::json &verify) {
  for (const auto &set : verify["data_sets"])
    for (const auto &c : set["outputs"]) {
      if (c.value("ok", true))
        continue;
      std::vector<std::string> sizes;
      for (const auto &[k, v] : set["sizes"].items())
        sizes.push_back(fmt::format("{}={}", k, v.dump()));
      std::string at = sizes.empty() ? "" : fmt::format(" [{}]", fmt::join(sizes, ","));
      if (c.contains("problem"))
        return fmt::format("verify {}{}: FAIL: {}", c["name"].get<std::string>(), at,
                           c["problem"].get<std::string>());
      return fmt::format("verify {}{}: max abs error {:.3g}, tolerance {:.3g} FAIL",
                         c["name"].get<std::string>(), at, c.value("max_abs_error", 0.0),
                         c.value("tolerance", 0.0));
    }
  return "";
}

void read_verify(const nlohmann::json &verify, Result &r) {
  bool any_nonzero = false;
  for (const auto &set : verify["data_sets"])
    for (const auto &c : set["outputs"]) {
      ++r.outputs_checked;
      // NaN errors are null in JSON: such a check failed and has no number to rank.
      if (c.contains("problem") || !c["max_abs_error"].is_number())
        continue;
      double err = c["max_abs_error"].get<double>(), tol = c.value("tolerance", 0.0);
      if (c["max_abs_ref"].is_number() && c["max_abs_ref"].get<double>() != 0)
        any_nonzero = true;
      r.worst_abs_error = std::max(r.worst_abs_error, err);
      if (tol > 0)
        r.worst_error_ratio = std::max(r.worst_error_ratio, err / tol);
    }
  // A model whose reference outputs are all zero (or NaN, which compares as zero) proves nothing.
  if (r.outputs_checked > 0 && !any_nonzero && r.worst_abs_error >= 0)
    r.note = "every reference output is 0 or NaN: the comparison proves nothing";
}

// --expected-outputs: the worst error against the file, and its first failing check.
std::string read_expected(const nlohmann::json &expected, Result &r) {
  std::string first;
  r.expected_checked = true;
  for (const auto &c : expected["outputs"]) {
    if (!c.value("ok", true) && first.empty())
      first = c.contains("problem")
                  ? fmt::format("expected {}: FAIL: {}", c["name"].get<std::string>(),
                                c["problem"].get<std::string>())
                  : fmt::format("expected {}: max abs error {:.3g}, tolerance {:.3g} FAIL",
                                c["name"].get<std::string>(), c.value("max_abs_error", 0.0),
                                c.value("tolerance", 0.0));
    if (c.contains("problem") || !c["max_abs_error"].is_number())
      continue;
    double err = c["max_abs_error"].get<double>(), tol = c.value("tolerance", 0.0);
    r.expected_abs_error = std::max(r.expected_abs_error, err);
    if (tol > 0)
      r.expected_error_ratio = std::max(r.expected_error_ratio, err / tol);
  }
  return first;
}

} // namespace

bool read_child_report(const std::string &path, Result &r) {
  std::ifstream f(path);
  if (!f)
    return false;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(f);
    if (j.value("format", "") != report::kFormat || j.value("version", 0) != report::kVersion)
      return false;
    if (j.contains("graph")) {
      r.nodes = j["graph"]["nodes"].get<long long>();
      r.params = report::human_count(j["graph"]["parameters"].get<double>());
    }
    if (j.contains("phases"))
      r.export_seconds = j["phases"]["export"].get<double>();
    if (j.contains("verify")) {
      read_verify(j["verify"], r);
      r.first_error = first_failed_check(j["verify"]);
    }
    if (j.contains("expected")) {
      std::string first = read_expected(j["expected"], r);
      if (r.first_error.empty())
        r.first_error = first;
    }
    if (j.contains("divergence") && j["divergence"]["found"].get<bool>())
      r.first_error +=
          "; " + report::divergence_text(nlohmann::ordered_json::parse(j["divergence"].dump()));
    if (j.contains("error"))
      r.first_error = j["error"]["message"].get<std::string>();
  } catch (const nlohmann::json::exception &) {
    return false; // a truncated or foreign file: fall back to the log
  }
  // Error messages can span lines ("2 ops have no converter at opset 17:\n  aten::..."): one line.
  for (auto &ch : r.first_error)
    if (ch == '\n')
      ch = ' ';
  return true;
}

void parse_child_log(const std::string &text, Result &r) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    bool is_error = line.rfind("torch2onnx: error:", 0) == 0 ||
                    line.rfind("torch2onnx: internal error:", 0) == 0 ||
                    line.find("terminate called") != std::string::npos;
    if (is_error) {
      r.first_error = line;
      return;
    }
  }
}

namespace {

std::string xml_escape(const std::string &s) {
  std::string o;
  for (char ch : s) {
    switch (ch) {
    case '&':
      o += "&amp;";
      break;
    case '<':
      o += "&lt;";
      break;
    case '>':
      o += "&gt;";
      break;
    case '"':
      o += "&quot;";
      break;
    default:
      // XML 1.0 forbids most control characters, which a crashing child may print.
      if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t')
        o += '?';
      else
        o += ch;
    }
  }
  return o;
}

std::string json_escape(const std::string &s) {
  std::string o;
  for (char ch : s) {
    switch (ch) {
    case '"':
      o += "\\\"";
      break;
    case '\\':
      o += "\\\\";
      break;
    case '\n':
      o += "\\n";
      break;
    case '\t':
      o += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(ch) < 0x20)
        o += fmt::format("\\u{:04x}", ch);
      else
        o += ch;
    }
  }
  return o;
}

std::string md_cell(const std::string &s) {
  std::string o;
  for (char ch : s) {
    if (ch == '|')
      o += "\\|";
    else if (ch == '\n')
      o += ' ';
    else
      o += ch;
  }
  if (o.size() > 160)
    o = o.substr(0, 157) + "...";
  return o;
}

std::string error_text(const Result &r) {
  std::string why = r.first_error;
  if (r.status == Status::Timeout)
    why = fmt::format("timed out after {:.0f} s", r.job.timeout);
  if (r.status == Status::Crash && why.empty())
    why = r.signal ? fmt::format("killed by signal {} ({})", r.signal, strsignal(r.signal))
                   : fmt::format("exit status {}", r.exit_code);
  if (why.empty() && r.status != Status::Pass && r.status != Status::UnexpectedPass)
    why = fmt::format("exit status {}", r.exit_code);
  return why;
}

std::string num(double v, const char *f = "{:.3g}") {
  return v < 0 ? "" : fmt::format(f, v);
}

// The oracle checks of one result: against the expected outputs, and the copy-load export.
std::string checks_text(const Result &r) {
  std::vector<std::string> parts;
  if (r.expected_checked)
    parts.push_back(r.expected_error_ratio < 0
                        ? std::string("expected: FAIL")
                        : fmt::format("expected {:.2g} / {:.2g}×tol", r.expected_abs_error,
                                      r.expected_error_ratio));
  if (!r.copy_load.empty())
    parts.push_back(r.copy_load == "identical" ? "copy load identical" : "copy load: FAIL");
  return fmt::format("{}", fmt::join(parts, "; "));
}

} // namespace

std::string junit_xml(const std::vector<Result> &results, const std::string &suite) {
  int failures = 0, errors = 0, skipped = 0;
  double total = 0;
  for (const auto &r : results) {
    total += r.seconds;
    if (r.status == Status::Fail)
      ++failures;
    if (r.status == Status::Crash || r.status == Status::Timeout)
      ++errors;
    if (r.status == Status::ExpectedFail)
      ++skipped;
  }
  std::string o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o +=
      fmt::format("<testsuites>\n<testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
                  "skipped=\"{}\" time=\"{:.2f}\">\n",
                  xml_escape(suite), results.size(), failures, errors, skipped, total);
  for (const auto &r : results) {
    o += fmt::format("  <testcase classname=\"{}\" name=\"{}\" time=\"{:.2f}\"", xml_escape(suite),
                     xml_escape(r.job.name), r.seconds);
    std::string why = xml_escape(error_text(r));
    switch (r.status) {
    case Status::Pass:
      o += "/>\n";
      continue;
    case Status::UnexpectedPass:
      o += fmt::format(">\n    <system-out>passed although expected to fail ({}); remove "
                       "expect_fail</system-out>\n  </testcase>\n",
                       xml_escape(r.job.expect_fail));
      continue;
    case Status::ExpectedFail:
      o += fmt::format(">\n    <skipped message=\"expected failure: {}\"/>\n  </testcase>\n",
                       xml_escape(r.job.expect_fail));
      continue;
    case Status::Fail:
      o += fmt::format(">\n    <failure message=\"{}\">log: {}</failure>\n  </testcase>\n", why,
                       xml_escape(r.log_path));
      continue;
    case Status::Crash:
    case Status::Timeout:
      o += fmt::format(">\n    <error type=\"{}\" message=\"{}\">log: {}</error>\n  </testcase>\n",
                       status_name(r.status), why, xml_escape(r.log_path));
      continue;
    }
  }
  o += "</testsuite>\n</testsuites>\n";
  return o;
}

std::string markdown_table(const std::vector<Result> &results, const std::string &title) {
  std::map<std::string, int> counts;
  for (const auto &r : results)
    ++counts[status_name(r.status)];
  std::vector<std::string> parts;
  for (const auto &[k, v] : counts)
    parts.push_back(fmt::format("{} {}", v, k));
  std::string o =
      fmt::format("{}: {} models: {}\n\n", title, results.size(), fmt::join(parts, ", "));
  o += "| model | opset | status | export s | total s | nodes | params | worst error (abs / "
       "tolerance) | oracle checks | first error |\n";
  o += "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- |\n";
  for (const auto &r : results) {
    std::string worst = r.worst_abs_error < 0 ? ""
                                              : fmt::format("{:.2g} / {:.2g}×tol",
                                                            r.worst_abs_error, r.worst_error_ratio);
    std::string why = error_text(r);
    if (r.status == Status::ExpectedFail)
      why = "expected: " + r.job.expect_fail + (why.empty() ? "" : " — " + why);
    if (why.empty())
      why = r.note;
    o += fmt::format(
        "| {} | {} | {} | {} | {:.1f} | {} | {} | {} | {} | {} |\n", md_cell(r.job.name),
        r.job.opset, status_name(r.status), num(r.export_seconds, "{:.1f}"), r.seconds,
        r.nodes < 0 ? "" : std::to_string(r.nodes), r.params, worst, checks_text(r), md_cell(why));
  }
  return o;
}

std::string json_report(const std::vector<Result> &results, const JsonExtra &extra) {
  std::string o = "{\n  \"models\": [\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const auto &r = results[i];
    auto opt = [](double v) { return v < 0 ? std::string("null") : fmt::format("{:.6g}", v); };
    o += fmt::format(
        "    {{\"name\": \"{}\", \"model\": \"{}\", \"opset\": {}, \"status\": \"{}\", "
        "\"unexpected\": {}, \"seconds\": {:.3f}, \"export_seconds\": {}, \"nodes\": {}, "
        "\"params\": \"{}\", \"worst_abs_error\": {}, \"worst_error_ratio\": {}, "
        "\"outputs_checked\": {}, \"expected_checked\": {}, \"expected_abs_error\": {}, "
        "\"expected_error_ratio\": {}, \"copy_load\": {}, \"copy_seconds\": {:.3f}, "
        "\"exit_code\": {}, \"signal\": {}, \"expect_fail\": \"{}\", "
        "\"first_error\": \"{}\", \"note\": \"{}\", \"log\": \"{}\"{}}}{}\n",
        json_escape(r.job.name), json_escape(r.job.model), r.job.opset, status_name(r.status),
        is_unexpected_failure(r.status) ? "true" : "false", r.seconds, opt(r.export_seconds),
        r.nodes < 0 ? "null" : std::to_string(r.nodes), json_escape(r.params),
        opt(r.worst_abs_error), opt(r.worst_error_ratio), r.outputs_checked,
        r.expected_checked ? "true" : "false", opt(r.expected_abs_error),
        opt(r.expected_error_ratio),
        r.copy_load.empty() ? std::string("null") : "\"" + json_escape(r.copy_load) + "\"",
        r.copy_seconds, r.exit_code, r.signal, json_escape(r.job.expect_fail),
        json_escape(error_text(r)), json_escape(r.note), json_escape(r.log_path),
        extra.model ? extra.model(i) : "", i + 1 < results.size() ? "," : "");
  }
  int unexpected = 0;
  for (const auto &r : results)
    unexpected += is_unexpected_failure(r.status);
  o += fmt::format("  ],\n  \"total\": {},\n  \"unexpected_failures\": {}{}\n}}\n", results.size(),
                   unexpected, extra.top);
  return o;
}

} // namespace torch2onnx::zoo
