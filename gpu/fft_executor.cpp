#include "gpu/fft_executor.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <vector>

#include "dispatch/config.h"
#include "dispatch/log.h"
#include "gpu/backend.h"
#include "gpu/host_backup.h"
#include "gpu/host_copy_pool.h"
#include "gpu/queue_context.h"
#include "gpu/retired_fft_plans.h"
#include "gpu/staging.h"

namespace gpushim::gpu {
namespace {

// Moves `bytes` between the caller's memory and packed memory, in the copy's direction.
template <bool kGather>
void move_bytes(std::byte* host, std::byte* packed, std::size_t bytes) {
    if constexpr (kGather) {
        std::memcpy(packed, host, bytes);
    } else {
        std::memcpy(host, packed, bytes);
    }
}

// Copies the packed elements [first, first + count) between `packed` (which holds them
// from its start) and the caller's array, in parallel pieces; a gather also copies them to
// `also` (which holds them from its start) unless it is nullptr, reading them once.
template <bool kGather>
void copy_packed(const StridedArray& side, std::byte* packed, uint64_t first, uint64_t count,
                 std::byte* also = nullptr) {
    const uint64_t piece = std::max<uint64_t>(1, kCopyPieceBytes / side.element);
    const uint64_t pieces = (count + piece - 1) / piece;
    const auto element = static_cast<std::ptrdiff_t>(side.element);
    const int64_t step = side.stride.back() * element;
    const auto length = static_cast<uint64_t>(side.row_length());
    const auto move = [also, packed](std::byte* host, std::byte* cursor, std::size_t bytes) {
        move_bytes<kGather>(host, cursor, bytes);
        if (kGather && also != nullptr) std::memcpy(also + (cursor - packed), cursor, bytes);
    };
    parallel_copy(static_cast<std::size_t>(pieces), static_cast<std::size_t>(count) * side.element,
                  [&](std::size_t p) {
                      uint64_t index = first + p * piece;
                      const uint64_t end = std::min(first + count, index + piece);
                      std::byte* cursor = packed + (index - first) * side.element;
                      while (index < end) {
                          const uint64_t column = index % length;
                          const uint64_t run = std::min(length - column, end - index);
                          std::byte* host = side.row_address(index / length) +
                                            static_cast<int64_t>(column) * step;
                          if (step == element) {
                              move(host, cursor, run * side.element);
                          } else {
                              for (uint64_t j = 0; j < run; ++j)
                                  move(host + static_cast<int64_t>(j) * step,
                                       cursor + j * side.element, side.element);
                          }
                          cursor += run * side.element;
                          index += run;
                      }
                  });
}

// FFTW's one-dimensional c2r reads only the real parts of the DC and (n even) Nyquist terms:
// they are the only values a real signal's spectrum has there. cuFFT promises nothing for
// input that is not Hermitian, so the packed input is made so: their imaginary parts are
// zeroed in the staging chunk holding the packed elements [first, first + count).
void drop_imaginary_parts_fftw_ignores(const FftProblem& problem, const StridedArray& input,
                                       std::byte* packed, uint64_t first, uint64_t count) {
    if (problem.kind != FftKind::c2r || problem.dims.size() != 1) return;
    const auto length = static_cast<uint64_t>(input.row_length());
    const bool has_nyquist = problem.dims[0].n % 2 == 0;
    const std::size_t real = input.element / 2;
    for (uint64_t transform = first / length; transform * length < first + count; ++transform) {
        for (uint64_t k : {uint64_t{0}, has_nyquist ? length - 1 : uint64_t{0}}) {
            const uint64_t index = transform * length + k;
            if (index >= first && index < first + count)
                std::memset(packed + (index - first) * input.element + real, 0, real);
        }
    }
}

// Whether the input and output arrays of an execution share bytes.
bool overlap(const FftOp& op) {
    const FftReach in = byte_reach(*op.problem, true);
    const FftReach out = byte_reach(*op.problem, false);
    const auto in_start = static_cast<int64_t>(reinterpret_cast<std::uintptr_t>(op.in));
    const auto out_start = static_cast<int64_t>(reinterpret_cast<std::uintptr_t>(op.out));
    return in_start + in.low < out_start + out.high && out_start + out.low < in_start + in.high;
}

// The number of transforms of the batch.
int64_t transform_count(const FftProblem& problem) {
    int64_t count = 1;
    for (const FftDimension& d : problem.howmany) count *= d.n;
    return count;
}

// Transforms per device execution: as many as hold about GPUSHIM_PANEL_BYTES of packed
// input and of packed output.
int64_t sub_batch(const FftProblem& problem) {
    const int64_t transforms = transform_count(problem);
    const auto one_transform = [&](bool input) {
        return strided_array(problem, input, nullptr).bytes() / static_cast<uint64_t>(transforms);
    };
    const uint64_t largest =
        std::max<uint64_t>(1, std::max(one_transform(true), one_transform(false)));
    // A transform larger than a panel is not split from the others: its sub-batches would
    // each pin result buffers of its size.
    if (largest > config().panel_bytes) return transforms;
    const uint64_t fitting = config().panel_bytes / largest;
    return static_cast<int64_t>(
        std::clamp<uint64_t>(fitting, 1, static_cast<uint64_t>(transforms)));
}

// The device plan of `desc`: a retired one, or a new one; nullptr when the device cannot
// plan it.
gpushim_fft_plan device_plan(const gpushim_device_plugin& plugin, const gpushim_fft_desc& desc) {
    RetiredFftPlans& retired = retired_fft_plans(plugin);
    if (gpushim_fft_plan plan = retired.adopt(desc)) return plan;
    gpushim_fft_plan plan = nullptr;
    int status = plugin.fft_plan_create(&desc, &plan);
    if (status != 0 && !note_failure_status(plugin, status)) {
        // The plan's work area is the device library's own allocation: memory the pool holds
        // for later calls, retired plans or resident operands may be what it lacks.
        device_pool(plugin).release_held();
        status = plugin.fft_plan_create(&desc, &plan);
    }
    if (status != 0) {
        note_failure_status(plugin, status);
        log::write(log::Level::info, "the device cannot plan this FFT (%s); FFTW computes it",
                   plugin.describe_error(status));
        return nullptr;
    }
    return plan;
}

}  // namespace

FftDeviceState::~FftDeviceState() {
    // A state whose device plans could not be made holds none; any other was made by the
    // loaded plugin.
    if (plan_ == nullptr && tail_plan_ == nullptr) return;
    const gpushim_device_plugin* plugin = backend();
    if (plugin == nullptr) return;  // a forked child or a lost device: nothing to give back
    RetiredFftPlans& retired = retired_fft_plans(*plugin);
    if (plan_ != nullptr) retired.retire(desc_, plan_);
    if (tail_plan_ != nullptr) retired.retire(tail_desc_, tail_plan_);
}

std::unique_ptr<FftDeviceState> plan_fft_on_device(const FftProblem& problem) {
    const gpushim_device_plugin* plugin = backend();
    if (plugin == nullptr) return nullptr;
    auto state = std::unique_ptr<FftDeviceState>(new (std::nothrow) FftDeviceState);
    if (state == nullptr) return nullptr;
    state->desc_ = device_description(problem);
    const int64_t transforms = state->desc_.howmany;
    state->desc_.howmany = sub_batch(problem);
    state->plan_ = device_plan(*plugin, state->desc_);
    if (state->plan_ == nullptr) return nullptr;
    if (transforms > state->desc_.howmany) {
        log::write(log::Level::debug,
                   "a batch of %lld FFTs runs in sub-batches of %lld (GPUSHIM_PANEL_BYTES)",
                   static_cast<long long>(transforms),
                   static_cast<long long>(state->desc_.howmany));
    }
    if (const int64_t tail = transforms % state->desc_.howmany; tail != 0) {
        state->tail_desc_ = state->desc_;
        state->tail_desc_.howmany = tail;
        state->tail_plan_ = device_plan(*plugin, state->tail_desc_);
        if (state->tail_plan_ == nullptr) return nullptr;  // plan_ is retired with the state
    }
    return state;
}

Outcome execute_fft(const FftOp& op, FftDeviceState& state, Transfers& transfers) {
    const gpushim_device_plugin* plugin = backend();
    if (plugin == nullptr) return Outcome::unavailable;
    QueueContext* context = thread_queue_context(*plugin);
    if (context == nullptr) return Outcome::unavailable;

    const std::lock_guard lock(state.mutex_);
    const StridedArray input = strided_array(*op.problem, true, op.in);
    const StridedArray output = strided_array(*op.problem, false, op.out);
    const int64_t transforms = transform_count(*op.problem);
    const int64_t batch = state.desc_.howmany;
    const bool split = transforms > batch;
    const std::size_t input_each = input.bytes() / static_cast<std::size_t>(transforms);
    const std::size_t output_each = output.bytes() / static_cast<std::size_t>(transforms);
    const std::size_t batch_input = input_each * static_cast<std::size_t>(batch);
    const std::size_t batch_output = output_each * static_cast<std::size_t>(batch);

    // The device arrays of this execution, from the pool: a plan holds none between its
    // executions, which reuse the pool's blocks. A complex transform runs in place on the
    // device, in half the memory; a real one's input and output have different layouts.
    // Sub-batches take turns in two slots, or in one where the device has no room for two
    // (remembered: asking for two again would empty the pool's cache on every execution).
    const bool one_device_array = op.problem->kind == FftKind::c2c;
    const std::size_t output_array_bytes = one_device_array ? 0 : batch_output;
    std::optional<DeviceBuffers<4>> arrays;
    int slots = split ? state.slots_that_fit_ : 1;
    for (; slots > 0; --slots) {
        const bool second = slots == 2;
        const std::size_t sizes[4] = {batch_input, output_array_bytes, second ? batch_input : 0,
                                      second ? output_array_bytes : 0};
        arrays.emplace(device_pool(*plugin), sizes);
        if (arrays->ok()) break;
        arrays.reset();
    }
    if (!arrays) {
        report_does_not_fit(*plugin, "an FFT of ", batch_input + output_array_bytes);
        return Outcome::unavailable;
    }
    if (split) state.slots_that_fit_ = slots;
    const auto device_input = [&](int slot) { return arrays->part(2 * slot); };
    const auto device_output = [&](int slot) {
        return one_device_array ? arrays->part(2 * slot) : arrays->part(2 * slot + 1);
    };

    // Where the output goes from the device:
    //   slots   sub-batches into their slot's pinned result buffer, each scattered while
    //           the next one is uploaded;
    //   chunks  through the chunk buffers, each scattered while the next one is downloaded.
    // An in-place transform's output overwrites its input, which is copied aside first into
    // a backup in ordinary memory (gpu/host_backup.h) and put back should the device fail,
    // for FFTW to transform. Where each packed output element lies where the same input
    // element lay (equal layouts, as a c2c transform with equal strides has), a sub-batch's
    // output overwrites only its own input: each sub-batch's input is copied aside while it
    // is gathered for its upload. Otherwise outputs written back could overwrite the input of
    // later sub-batches: the whole input is copied aside before the first upload, and the
    // uploads read it there.
    const bool in_place = overlap(op);
    const bool same_layout = in_place && input.base == output.base &&
                             input.element == output.element && input.extent == output.extent &&
                             input.stride == output.stride;
    HostBackup input_backup;
    std::byte* packed_input = nullptr;
    std::size_t backed_up = 0;  // bytes of the packed input in the backup
    if (in_place) {
        packed_input = input_backup.reserve(input.bytes());
        if (packed_input == nullptr) {
            log::write(log::Level::info,
                       "no host memory for a copy of an in-place FFT's %.1f MB; computing on the "
                       "CPU",
                       static_cast<double>(input.bytes()) * 1e-6);
            return Outcome::unavailable;
        }
        if (!same_layout) {
            copy_packed<true>(input, packed_input, 0, input.count());
            backed_up = input.bytes();
        }
    }
    bool slot_buffers = false;
    if (split) {
        slot_buffers = true;
        for (int slot = 0; slot < slots; ++slot)
            slot_buffers =
                slot_buffers && context->reserve_result(*plugin, slot, batch_output) == 0;
    }
    // Writes the packed output bytes [offset, offset + bytes), received in `packed`.
    const auto scatter = [&](const std::byte* packed, std::size_t offset, std::size_t bytes) {
        copy_packed<false>(output, const_cast<std::byte*>(packed), offset / output.element,
                           bytes / output.element);
    };

    // A sub-batch downloaded into its slot's result buffer, not yet scattered.
    struct Received {
        int slot;
        std::size_t offset, bytes;
    };
    std::optional<Received> received;
    const auto scatter_received = [&]() -> int {
        if (const int status = plugin->event_synchronize(context->panel_done[received->slot]))
            return status;
        scatter(static_cast<const std::byte*>(context->result[received->slot]), received->offset,
                received->bytes);
        received.reset();
        return 0;
    };

    Staging staging(*plugin, *context, transfers);
    const char* step = "FFT upload";
    int status = 0;
    for (int64_t first = 0; status == 0 && first < transforms; first += batch) {
        const int64_t count = std::min(batch, transforms - first);
        const int slot = static_cast<int>(first / batch % slots);
        const std::size_t input_offset = static_cast<std::size_t>(first) * input_each;
        const std::size_t output_offset = static_cast<std::size_t>(first) * output_each;
        const std::size_t output_bytes = static_cast<std::size_t>(count) * output_each;
        step = "FFT upload";
        status = staging.upload_packed(
            device_input(slot), static_cast<std::size_t>(count) * input_each,
            [&](std::byte* staging_chunk, std::size_t offset, std::size_t bytes) {
                const uint64_t element = (input_offset + offset) / input.element;
                if (in_place && !same_layout) {
                    parallel_memcpy(staging_chunk, packed_input + input_offset + offset, bytes);
                } else {
                    copy_packed<true>(input, staging_chunk, element, bytes / input.element,
                                      same_layout ? packed_input + input_offset + offset : nullptr);
                    if (same_layout) backed_up = input_offset + offset + bytes;
                }
                drop_imaginary_parts_fftw_ignores(*op.problem, input, staging_chunk, element,
                                                  bytes / input.element);
            },
            slot);
        if (status != 0) break;
        step = "FFT";
        status = plugin->fft_execute(count == batch ? state.plan_ : state.tail_plan_,
                                     device_input(slot), device_output(slot), context->queue[slot]);
        if (status != 0) break;
        step = "FFT download";
        if (slot_buffers) {
            // One slot: its result buffer must be scattered before it receives again.
            if (received && received->slot == slot) status = scatter_received();
            if (status == 0)
                status = staging.download(device_output(slot), 0, output_bytes, 1, slot);
            if (status == 0)
                status = plugin->event_record(context->panel_done[slot], context->queue[slot]);
            // The previous sub-batch is scattered while this one is downloaded.
            if (status == 0 && received) status = scatter_received();
            if (status == 0) received = Received{slot, output_offset, output_bytes};
        } else {
            status = staging.download_packed(
                device_output(slot), output_bytes,
                [&](const std::byte* staging_chunk, std::size_t offset, std::size_t bytes) {
                    scatter(staging_chunk, output_offset + offset, bytes);
                },
                slot);
        }
    }
    if (status == 0 && received) status = scatter_received();
    status = staging.finish(status, step);
    if (status != 0) {
        if (in_place) copy_packed<false>(input, packed_input, 0, backed_up / input.element);
        report_failure(*plugin, step, status);
        return Outcome::failed;
    }
    return Outcome::completed;
}

}  // namespace gpushim::gpu
