// Reading a child's output and writing the batch results (JUnit XML, markdown, JSON).
#include <fmt/format.h>

#include <cstring>
#include <map>
#include <regex>
#include <sstream>

#include "apps/zoo.h"

namespace torch2onnx::zoo {

const char* status_name(Status s) {
  switch (s) {
    case Status::Pass: return "pass";
    case Status::Fail: return "fail";
    case Status::Crash: return "crash";
    case Status::Timeout: return "timeout";
    case Status::ExpectedFail: return "xfail";
    case Status::UnexpectedPass: return "xpass";
  }
  return "?";
}

bool is_unexpected_failure(Status s) {
  return s == Status::Fail || s == Status::Crash || s == Status::Timeout;
}

void parse_child_output(const std::string& text, Result& r) {
  // The CLI's summary line: "<path>: opset 17, 49 nodes, 11.69M parameters (46.8 MB), 1.08 s"
  static const std::regex summary(R"(: opset \d+, (\d+) nodes, (\S+) parameters \([^)]*\), ([0-9.]+) s$)");
  // "  verify <name>: max abs error 1.2e-05, max rel error ... (max |torch| 3.1, tolerance 0.0001) ok"
  static const std::regex verify(
      R"(^  verify .*: max abs error (\S+), max rel error \S+ \(max \|torch\| (\S+), tolerance (\S+)\) )");
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  bool continue_error = false, saw_verify_fail = false;
  bool any_nonzero = false;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, summary)) {
      r.nodes = std::stoll(m[1]);
      r.params = m[2];
      r.export_seconds = std::stod(m[3]);
    } else if (std::regex_search(line, m, verify)) {
      double err = std::stod(m[1]), tol = std::stod(m[3]);
      if (std::stod(m[2]) != 0) any_nonzero = true;
      r.worst_abs_error = std::max(r.worst_abs_error, err);
      if (tol > 0) r.worst_error_ratio = std::max(r.worst_error_ratio, err / tol);
      ++r.outputs_checked;
    }
    // A verify FAIL line says which output and by how much; it outranks the generic message
    // after it (which, stderr being unbuffered, often comes first in the log).
    bool verify_fail = line.rfind("  verify ", 0) == 0 && line.find("FAIL") != std::string::npos;
    if (verify_fail && !saw_verify_fail) {
      saw_verify_fail = true;
      r.first_error.clear();
      continue_error = false;
    }
    bool is_error = line.rfind("torch2onnx: error:", 0) == 0 ||
                    line.rfind("torch2onnx: internal error:", 0) == 0 ||
                    (line.rfind("  verify ", 0) == 0 && line.find("FAIL") != std::string::npos) ||
                    line.find("terminate called") != std::string::npos;
    if (continue_error) {
      // "N ops have no converter at opset 17:" names the ops on the next line.
      auto b = line.find_first_not_of(' ');
      if (b != std::string::npos) r.first_error += " " + line.substr(b);
      continue_error = false;
    }
    if (is_error && r.first_error.empty() && (!saw_verify_fail || verify_fail)) {
      auto b = line.find_first_not_of(' ');
      r.first_error = line.substr(b == std::string::npos ? 0 : b);
      continue_error = !r.first_error.empty() && r.first_error.back() == ':';
    }
    if (line.rfind("  verify ", 0) == 0 && line.find(": FAIL:") != std::string::npos) ++r.outputs_checked;
  }
  // A model whose reference outputs are all zero (or NaN, which compares as zero) proves nothing.
  if (r.outputs_checked > 0 && !any_nonzero && r.worst_abs_error >= 0)
    r.note = "every reference output is 0 or NaN: the comparison proves nothing";
}

namespace {

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default:
        // XML 1.0 forbids most control characters, which a crashing child may print.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') o += '?';
        else o += ch;
    }
  }
  return o;
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    switch (ch) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) o += fmt::format("\\u{:04x}", ch);
        else o += ch;
    }
  }
  return o;
}

std::string md_cell(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '|') o += "\\|";
    else if (ch == '\n') o += ' ';
    else o += ch;
  }
  if (o.size() > 160) o = o.substr(0, 157) + "...";
  return o;
}

std::string error_text(const Result& r) {
  std::string why = r.first_error;
  if (r.status == Status::Timeout) why = fmt::format("timed out after {:.0f} s", r.job.timeout);
  if (r.status == Status::Crash && why.empty())
    why = r.signal ? fmt::format("killed by signal {} ({})", r.signal, strsignal(r.signal))
                   : fmt::format("exit status {}", r.exit_code);
  if (why.empty() && r.status != Status::Pass && r.status != Status::UnexpectedPass)
    why = fmt::format("exit status {}", r.exit_code);
  return why;
}

std::string num(double v, const char* f = "{:.3g}") { return v < 0 ? "" : fmt::format(f, v); }

}  // namespace

std::string junit_xml(const std::vector<Result>& results, const std::string& suite) {
  int failures = 0, errors = 0, skipped = 0;
  double total = 0;
  for (const auto& r : results) {
    total += r.seconds;
    if (r.status == Status::Fail) ++failures;
    if (r.status == Status::Crash || r.status == Status::Timeout) ++errors;
    if (r.status == Status::ExpectedFail) ++skipped;
  }
  std::string o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += fmt::format(
      "<testsuites>\n<testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
      "skipped=\"{}\" time=\"{:.2f}\">\n",
      xml_escape(suite), results.size(), failures, errors, skipped, total);
  for (const auto& r : results) {
    o += fmt::format("  <testcase classname=\"{}\" name=\"{}\" time=\"{:.2f}\"", xml_escape(suite),
                     xml_escape(r.job.name), r.seconds);
    std::string why = xml_escape(error_text(r));
    switch (r.status) {
      case Status::Pass: o += "/>\n"; continue;
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

std::string markdown_table(const std::vector<Result>& results, const std::string& title) {
  std::map<std::string, int> counts;
  for (const auto& r : results) ++counts[status_name(r.status)];
  std::vector<std::string> parts;
  for (const auto& [k, v] : counts) parts.push_back(fmt::format("{} {}", v, k));
  std::string o = fmt::format("{}: {} models: {}\n\n", title, results.size(), fmt::join(parts, ", "));
  o += "| model | opset | status | export s | total s | nodes | params | worst error (abs / tolerance) | first error |\n";
  o += "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- |\n";
  for (const auto& r : results) {
    std::string worst = r.worst_abs_error < 0 ? "" : fmt::format("{:.2g} / {:.2g}×tol",
                                                                  r.worst_abs_error,
                                                                  r.worst_error_ratio);
    std::string why = error_text(r);
    if (r.status == Status::ExpectedFail)
      why = "expected: " + r.job.expect_fail + (why.empty() ? "" : " — " + why);
    if (why.empty()) why = r.note;
    o += fmt::format("| {} | {} | {} | {} | {:.1f} | {} | {} | {} | {} |\n", md_cell(r.job.name),
                     r.job.opset, status_name(r.status), num(r.export_seconds, "{:.1f}"), r.seconds,
                     r.nodes < 0 ? "" : std::to_string(r.nodes), r.params, worst, md_cell(why));
  }
  return o;
}

std::string json_report(const std::vector<Result>& results) {
  std::string o = "{\n  \"models\": [\n";
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    auto opt = [](double v) { return v < 0 ? std::string("null") : fmt::format("{:.6g}", v); };
    o += fmt::format(
        "    {{\"name\": \"{}\", \"model\": \"{}\", \"opset\": {}, \"status\": \"{}\", "
        "\"unexpected\": {}, \"seconds\": {:.3f}, \"export_seconds\": {}, \"nodes\": {}, "
        "\"params\": \"{}\", \"worst_abs_error\": {}, \"worst_error_ratio\": {}, "
        "\"outputs_checked\": {}, \"exit_code\": {}, \"signal\": {}, \"expect_fail\": \"{}\", "
        "\"first_error\": \"{}\", \"note\": \"{}\", \"log\": \"{}\"}}{}\n",
        json_escape(r.job.name), json_escape(r.job.model), r.job.opset, status_name(r.status),
        is_unexpected_failure(r.status) ? "true" : "false", r.seconds, opt(r.export_seconds),
        r.nodes < 0 ? "null" : std::to_string(r.nodes), json_escape(r.params),
        opt(r.worst_abs_error), opt(r.worst_error_ratio), r.outputs_checked, r.exit_code, r.signal,
        json_escape(r.job.expect_fail), json_escape(error_text(r)), json_escape(r.note), json_escape(r.log_path),
        i + 1 < results.size() ? "," : "");
  }
  int unexpected = 0;
  for (const auto& r : results) unexpected += is_unexpected_failure(r.status);
  o += fmt::format("  ],\n  \"total\": {},\n  \"unexpected_failures\": {}\n}}\n", results.size(),
                   unexpected);
  return o;
}

}  // namespace torch2onnx::zoo
