// Built only where GPUSHIM_SANITIZER has undefined: adds past INT_MAX. The test passes when
// UndefinedBehaviorSanitizer reports the signed overflow and stops the program there, which
// shows that the build's programs are instrumented and that undefined behaviour fails its test
// (.ci/sanitize address, a build with both checks).
#include <climits>
#include <cstdlib>

int main(int argc, char**) {
    volatile int largest = INT_MAX;
    const int past_largest = largest + argc;
    return past_largest < 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
