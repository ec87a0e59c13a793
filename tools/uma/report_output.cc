// --report and --report-file (see report_output.h).
#include "report_output.h"

#include "uma/support/file.h"

namespace uma::tool {

void add_report_options(CLI::App& command, ReportOutput& output, const std::string& summary) {
  command.add_option("--report", output.format, summary + ": table, json, dot or none")
      ->check(CLI::IsMember({"table", "json", "dot", "none"}))
      ->capture_default_str();
  command
      .add_option("--report-file", output.file,
                  "Where to write the report ('-' for standard output)")
      ->capture_default_str();
}

Status write_report(const PartitionReport& report, const ReportOutput& output) {
  if (output.format == "none") return Status::success();
  if (output.format == "json") return write_file(output.file, report.to_json());
  if (output.format == "dot") return write_file(output.file, report.to_dot());
  return write_file(output.file, report.to_table());
}

}  // namespace uma::tool
