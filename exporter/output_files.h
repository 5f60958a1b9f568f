// What an export writes and how: the rule that no path written is a path read (checked before
// anything is loaded), and the staging that makes an export all or nothing. The ONNX file, its
// external data and the test-data sets are written into a private folder beside the output
// (".tmp-t2o-XXXXXX"), verified there, and moved into place only when the export succeeded, under
// a lock on the output folder: a failed export (out of memory while verifying, a crash, an
// interrupt) leaves the earlier output as it was, and two exports to one path at once each
// finish with a complete set of their own files (the last one's is what stays).
#pragma once

#include "builder/file_io.h"
#include "builder/process.h"
#include "exporter/options.h"

#include <memory>
#include <string>
#include <vector>

namespace torch2onnx {

// The paths an export to `out` reads (the model, --input-data, --load-library, --converters) and
// writes (OUT, OUT.data and, with --verify, the test_data_set_N folders now beside it, which it
// replaces), for check_path_conflicts.
std::vector<PathUse> export_reads(const ExportOptions &o);
std::vector<PathUse> export_writes(const ExportOptions &o, const std::string &out);

// The folder --verify writes the test-data sets of `out` into: OUT without its extension.
std::string test_data_folder(const std::string &out);

// Refuses an export whose test_data_set_N folders (which --verify replaces) hold anything but
// the input_K.pb / output_K.pb files an export writes: those are the user's, and are not deleted.
void check_test_data_sets(const std::string &out);

class StagedOutput {
public:
  // Creates the private folder beside `out` (beside the file it links to, when it is a symbolic
  // link: written_file). Throws Error when the output folder is not writable.
  explicit StagedOutput(const std::string &out);
  // Removes the private folder and what is left in it (all of it, when commit did not run).
  ~StagedOutput();
  StagedOutput(const StagedOutput &) = delete;
  StagedOutput &operator=(const StagedOutput &) = delete;

  // Where to write the ONNX file (its external data goes beside it, with the name OUT.data).
  const std::string &model_path() const { return model_; }
  // Where the test-data sets go once moved into place (OUT without its extension).
  std::string final_test_data_folder() const { return test_data_folder(out_); }
  // Where to write test-data set k.
  std::string test_data_dir(size_t k);
  // `message` with the private folder's paths written as the output's (an error writing
  // ".tmp-t2o-XXXXXX/m.onnx" is about "m.onnx" to the user).
  std::string public_text(const std::string &message) const;
  // Moves the files into place: the test-data sets replace the old ones (when any were written),
  // the external data replaces OUT.data (an inline model removes the OUT.data of the model it
  // replaces), the model replaces OUT. Throws Error when a move fails.
  void commit();

private:
  std::string out_, dir_, model_;
  size_t sets_ = 0;
  bool committed_ = false;
  std::vector<std::unique_ptr<TempFileGuard>> guards_; // removed on SIGINT / a crash
};

} // namespace torch2onnx
