// The headers are included here as well as in every other test file: the library must link when it is
// included from several translation units (everything in it is inline).
#include <catch2/catch.hpp>

#include <cuckoo/cuckoo_filter.hpp>
#include <cuckoo/cuckoo_filter.hpp>  // and twice in one unit

TEST_CASE("the header-only library links from several translation units", "[filter]") {
  cuckoo::Options o;
  o.capacity = 10;
  cuckoo::CuckooFilter f(o);
  CHECK(f.add("x"));
}
