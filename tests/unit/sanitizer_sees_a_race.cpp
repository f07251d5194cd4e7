// Built only with GPUSHIM_SANITIZER=thread: two threads write one counter without a lock. The
// test passes when ThreadSanitizer reports the race, which shows that the build's programs
// are instrumented and that a race in them fails its test (.ci/sanitize thread).
#include <thread>

namespace {
int unguarded_counter = 0;
}

int main() {
    std::thread writer([] { ++unguarded_counter; });
    ++unguarded_counter;
    writer.join();
    return unguarded_counter == 2 ? 0 : 1;
}
