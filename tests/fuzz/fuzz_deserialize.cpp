// libFuzzer target: arbitrary bytes into the export reader. It must either refuse them (a Status, no
// crash, no out-of-bounds read: ASan watches) or accept them, and then the export is canonical: writing
// the filter back gives exactly the bytes that were read.
//
// The first input byte is a switch, the rest the candidate export: when it is odd, the harness rewrites
// the last 8 bytes with the right checksum first, so that mutations reach the checks behind the checksum
// (stored count against occupied slots, unused bits), which random bytes would almost never pass.
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include <cuckoo/cuckoo_filter.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::vector<std::uint8_t> input(data + 1, data + size);
  if ((data[0] & 1) != 0 && input.size() >= cuckoo::format::kChecksumSize) {
    const std::size_t body = input.size() - cuckoo::format::kChecksumSize;
    cuckoo::format::put_le(input.data() + body, cuckoo::format::checksum(input.data(), body), 8);
  }
  std::optional<cuckoo::CuckooFilter> filter;
  const cuckoo::Status status = cuckoo::CuckooFilter::parse(input, filter);
  if (!status.ok()) {
    if (filter.has_value() || status.message.empty()) std::abort();  // refused: nothing built, and said why
    return 0;
  }
  const auto bytes = filter->serialize();
  if (bytes != input) std::abort();
  // A loaded filter is usable: an add succeeds (or, when full, changes nothing) and is then found.
  if (filter->add("fuzz")) {
    if (!filter->contains("fuzz")) std::abort();
  } else if (filter->serialize() != bytes) {
    std::abort();
  }
  return 0;
}
