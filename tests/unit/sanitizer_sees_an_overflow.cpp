// Built only where GPUSHIM_SANITIZER has address: reads one element past the end of a heap array.
// The test passes when AddressSanitizer reports it, which shows that the build's programs are
// instrumented and that such a read fails its test (.ci/sanitize address).
#include <cstdlib>
#include <vector>

int main(int argc, char**) {
    std::vector<int> values(static_cast<std::size_t>(argc + 3), 1);
    volatile const int* past_the_end = values.data() + values.size();
    return *past_the_end == 1 ? EXIT_SUCCESS : EXIT_FAILURE;
}
