#include "gpu/blas3_executor.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "dispatch/config.h"
#include "dispatch/log.h"
#include "gpu/backend.h"
#include "gpu/blas3_panels.h"
#include "gpu/device_memory_pool.h"
#include "gpu/queue_context.h"
#include "gpu/residency_cache.h"
#include "gpu/staging.h"

namespace gpushim::gpu {
namespace {

Matrix operand(const Blas3Op& op, Operand which) {
    const void* pointer = which == Operand::a ? op.a : which == Operand::b ? op.b : op.c;
    const int64_t ld = which == Operand::a ? op.lda : which == Operand::b ? op.ldb : op.ldc;
    return {static_cast<const std::byte*>(pointer), ld, operand_extent(op, which),
            element_size(op.precision)};
}

// What a panel writes in the caller's memory: the output operand of its sub-call, or the
// rectangle a triangle's columns lie in, of which one triangle is delivered.
struct PanelOutput {
    Matrix matrix;
    Triangle part = Triangle::all;
    int64_t diagonal = 0;
};

PanelOutput triangle_output(const Blas3Op& op, const TrianglePanel& panel, PanelRange range) {
    const std::size_t element = element_size(op.precision);
    const auto* origin = static_cast<const std::byte*>(op.c) +
                         static_cast<std::size_t>(panel.first_row + range.first * op.ldc) * element;
    return {{origin, op.ldc, {panel.rows, range.count}, element},
            op.uplo == 'U' ? Triangle::upper : Triangle::lower,
            panel.diagonal};
}

// Where a pointer into the caller's rectangle `host` lies in its packed device copy.
void* in_packed_copy(const void* pointer, const Matrix& host, void* device) {
    const auto elements =
        static_cast<int64_t>((static_cast<const std::byte*>(pointer) - host.host) /
                             static_cast<std::ptrdiff_t>(host.element));
    const int64_t column = elements / host.ld;
    const int64_t row = elements % host.ld;
    return static_cast<std::byte*>(device) +
           static_cast<std::size_t>(row + column * host.extent.rows) * host.element;
}

// The call in panels of `width` columns (or rows); nullopt when the device has no room for
// them, `needed` then saying how many bytes were asked for. Panels `narrowed` below the
// configured width leave the residency cache alone: the first attempt asked it already (a
// second question would count as a second sighting of A, and the B panels' keys are not
// those that later calls of the configured width ask for).
std::optional<Outcome> execute_in_panels(const gpushim_device_plugin* plugin, const Blas3Op& op,
                                         CpuPart cpu, Transfers& transfers, int64_t width,
                                         bool narrowed, std::size_t& needed) {
    const PanelAxis axis = panel_axis(op);
    const bool triangle = axis == PanelAxis::triangle;
    const int64_t span = panel_span(op, axis);
    const int64_t panels = (span + width - 1) / width;
    const int queues = panels > 1 ? QueueContext::kQueues : 1;
    const auto panel_at = [&](int64_t p) {
        const PanelRange range = panel_range(op, axis, width, p);
        return panel_op(op, axis, range.first, range.count);
    };
    const Operand output = output_operand(op);
    const auto output_of = [&](int64_t p) -> PanelOutput {
        if (!triangle) return {operand(panel_at(p), output)};
        const PanelRange range = panel_range(op, axis, width, p);
        return triangle_output(op, triangle_panel(op, range.first, range.count), range);
    };

    // The largest panel sizes the per-queue buffers (a triangle's grow towards its corner).
    const bool uses_b = operand_extent(op, Operand::b).cols > 0;
    const bool shared_b = triangle && uses_b;  // a rank-2k update reads B whole
    const bool uploads_c = output == Operand::c && reads_output(op);
    std::size_t output_bytes = 0;
    for (int64_t p = 0; p < panels; ++p) {
        output_bytes = std::max(output_bytes, output_of(p).matrix.bytes());
        if (!triangle) break;
    }

    QueueContext* context = thread_queue_context(*plugin);
    if (context == nullptr) return Outcome::unavailable;
    for (int q = 0; q < queues; ++q) {
        if (const int status = context->reserve_result(*plugin, q, output_bytes); status != 0) {
            report_failure(*plugin, "pinned allocation", status);
            return Outcome::failed;
        }
    }

    DeviceMemoryPool& pool = device_pool(*plugin);
    const Matrix a = operand(op, Operand::a);
    const Matrix whole_b = operand(op, Operand::b);
    const Matrix whole_output = operand(op, output);
    const bool reads_whole_output = output == Operand::b || uploads_c;
    const std::size_t b_bytes = uses_b && !shared_b ? operand(panel_at(0), Operand::b).bytes() : 0;
    const std::size_t c_bytes = output == Operand::c ? output_bytes : 0;
    const std::size_t second_queue = queues > 1 ? 1 : 0;

    // The inputs the call only reads may be on the device from earlier calls: A, and B
    // (whole for a rank-2k update, else panel by panel unless B is the output). Every
    // panel is asked for (so that the cache sees them all), and B is leased only if all of
    // them are; but a B in several panels whose whole array is on the device with its
    // prints (a result written into it, or an A) is used whole. Leases given back before
    // anything was uploaded keep their entries as they were.
    std::optional<ResidencyCache::Lease> a_lease;
    std::vector<ResidencyCache::Lease> b_leases;
    std::optional<ResidencyCache::Lease> whole_b_lease;
    std::optional<ResidencyCache::Lease> output_lease;
    const auto give_back_b = [&b_leases] {
        for (ResidencyCache::Lease& panel : b_leases) panel.keep();
        b_leases.clear();
    };
    if (ResidencyCache* cache = narrowed ? nullptr : residency_cache(*plugin); cache != nullptr) {
        a_lease = lease_matrix(*cache, a);
        const bool b_fits = whole_b.bytes() <= cache->capacity();
        const bool b_read = b_fits && uses_b && output != Operand::b;
        if (b_read && !shared_b && panels > 1)
            whole_b_lease =
                lease_matrix(*cache, whole_b, ResidencyCache::Access::reads_whole_if_kept);
        const int64_t b_parts = whole_b_lease ? 0 : shared_b ? 1 : panels;
        bool every_part = true;
        for (int64_t p = 0; b_read && p < b_parts; ++p) {
            auto part = lease_matrix(*cache, shared_b ? whole_b : operand(panel_at(p), Operand::b));
            every_part = every_part && part.has_value();
            if (part.has_value()) b_leases.push_back(std::move(*part));
        }
        if (!every_part) give_back_b();
        // The output's column panels lie one after the other in its packed form: computed
        // into one block of the device, the result stays there for a later call that reads
        // it (as A, or as the C it updates), with the prints taken as it is delivered. Only
        // for an array that calls read, and not while it rests (the program changes it
        // between calls).
        if (axis == PanelAxis::columns) {
            output_lease = lease_matrix(*cache, whole_output,
                                        reads_whole_output ? ResidencyCache::Access::reads
                                                           : ResidencyCache::Access::writes_only);
            if (output_lease && !output_lease->checks()) {
                output_lease->keep();
                output_lease.reset();
            }
        }
    }
    // a, the shared b, then b and c of each queue; an operand with a lease needs none.
    std::optional<DeviceBuffers<6>> buffers;
    const auto allocate_buffers = [&] {
        const std::size_t own_a = a_lease ? 0 : a.bytes();
        const std::size_t own_shared_b = shared_b && b_leases.empty() ? whole_b.bytes() : 0;
        const std::size_t own_b =
            b_leases.empty() && !whole_b_lease && !(output_lease && output == Operand::b) ? b_bytes
                                                                                          : 0;
        const std::size_t own_c = output_lease ? 0 : c_bytes;
        const std::size_t sizes[6] = {own_a, own_shared_b,         own_b,
                                      own_c, second_queue * own_b, second_queue * own_c};
        buffers.emplace(pool, sizes);
    };
    allocate_buffers();
    if (!buffers->ok() && (a_lease || !b_leases.empty() || whole_b_lease || output_lease)) {
        // The leases may hold what the call needs: without them, the pool's shortage hook
        // can free their memory, and the call needs only two panels of B and of C.
        buffers.reset();
        for (std::optional<ResidencyCache::Lease>* lease :
             {&a_lease, &whole_b_lease, &output_lease}) {
            if (*lease) (*lease)->keep();
            lease->reset();
        }
        give_back_b();
        allocate_buffers();
    }
    if (!buffers->ok()) {
        needed = a.bytes() + (shared_b ? whole_b.bytes() : 0) +
                 static_cast<std::size_t>(queues) * (b_bytes + c_bytes);
        return std::nullopt;
    }
    void* const device_a = a_lease ? a_lease->device() : buffers->part(0);
    void* const device_shared_b = !shared_b           ? nullptr
                                  : !b_leases.empty() ? b_leases[0].device()
                                                      : buffers->part(1);
    // Panel p's columns of the output in the leased block.
    const auto in_output_lease = [&](int64_t p) -> void* {
        const auto first = static_cast<std::size_t>(panel_range(op, axis, width, p).first);
        return static_cast<std::byte*>(output_lease->device()) +
               first * whole_output.column_bytes();
    };
    const bool leased_output = output_lease.has_value();
    const bool b_kept_whole = whole_b_lease.has_value();
    const auto device_b = [&](int64_t p) {
        if (shared_b) return device_shared_b;
        if (leased_output && output == Operand::b) return in_output_lease(p);
        if (b_kept_whole) return in_packed_copy(panel_at(p).b, whole_b, whole_b_lease->device());
        return b_leases.empty() ? buffers->part(2 + 2 * static_cast<std::size_t>(p % queues))
                                : b_leases[static_cast<std::size_t>(p)].device();
    };
    const auto device_c = [&](int64_t p, int q) {
        return leased_output && output == Operand::c
                   ? in_output_lease(p)
                   : buffers->part(3 + 2 * static_cast<std::size_t>(q));
    };
    // The call with A and B on the device, packed: what a triangle's device calls come from.
    Blas3Op on_device = op;
    on_device.a = device_a;
    on_device.lda = std::max<int64_t>(1, a.extent.rows);
    on_device.b = device_shared_b;
    on_device.ldb = std::max<int64_t>(1, whole_b.extent.rows);

    Staging staging(*plugin, *context, transfers);
    std::optional<DeliveredPrints> output_prints;
    if (leased_output) output_prints.emplace(whole_output.bytes());
    int64_t delivered = 0;  // panels [0, delivered) are in the caller's memory
    const auto deliver_panel = [&](int64_t p) {
        const PanelOutput out = output_of(p);
        const auto* packed = static_cast<const std::byte*>(context->result[p % queues]);
        if (output_prints) {
            const auto first = static_cast<std::size_t>(panel_range(op, axis, width, p).first);
            output_prints->deliver(packed, first * whole_output.column_bytes(), out.matrix.bytes(),
                                   whole_output);
        } else {
            deliver(packed, out.matrix, out.part, out.diagonal);
        }
        delivered = p + 1;
    };
    // Enqueues panel p's computation on queue q, its inputs being on the device.
    const auto compute_panel = [&](int64_t p, int q) -> int {
        if (triangle) {
            const PanelRange range = panel_range(op, axis, width, p);
            const Matrix region = output_of(p).matrix;
            TrianglePanel panel = triangle_panel(on_device, range.first, range.count);
            for (int i = 0; i < panel.call_count; ++i) {
                Blas3Op& call = panel.calls[i];
                call.c = in_packed_copy(call.c, region, device_c(p, q));
                call.ldc = std::max<int64_t>(1, region.extent.rows);
                if (int status = plugin->blas3(&call, context->queue[q]); status != 0)
                    return status;
            }
            return 0;
        }
        const Blas3Op panel = panel_at(p);
        Blas3Op device_op = panel;
        device_op.a = device_a;
        device_op.lda = on_device.lda;
        device_op.b = device_b(p);
        device_op.ldb = std::max<int64_t>(
            1, b_kept_whole ? whole_b.extent.rows : operand_extent(panel, Operand::b).rows);
        device_op.c = device_c(p, q);
        device_op.ldc = std::max<int64_t>(1, operand_extent(panel, Operand::c).rows);
        return plugin->blas3(&device_op, context->queue[q]);
    };

    // Uploads `m`; with a lease that checks, only the chunks that changed, noting whether
    // any was found unchanged (the entry keeps count of the uses that found none).
    char a_reused = 0;
    std::vector<char> b_reused(b_leases.size(), 0);
    char whole_b_reused = 0;
    char output_reused = 0;
    const auto upload = [&](void* device, const Matrix& m, int q, ResidencyCache::Lease* lease,
                            char* reused_any) {
        const uint64_t before = transfers.bytes_reused;
        ChunkPrints* prints = lease != nullptr && lease->checks() ? &lease->prints() : nullptr;
        const int status = staging.upload(device, m, q, prints);
        if (reused_any != nullptr) *reused_any = transfers.bytes_reused > before;
        return status;
    };
    const char* step = "upload";
    int status = upload(device_a, a, 0, a_lease ? &*a_lease : nullptr, &a_reused);
    if (status == 0 && shared_b) {
        status = upload(device_shared_b, whole_b, 0, b_leases.empty() ? nullptr : &b_leases[0],
                        b_leases.empty() ? nullptr : &b_reused[0]);
    }
    if (status == 0 && b_kept_whole)
        status = upload(whole_b_lease->device(), whole_b, 0, &*whole_b_lease, &whole_b_reused);
    // A leased output that the call reads goes up whole, before any panel, so that what is
    // still on the device of it is not copied again. Prints taken on the way would be
    // replaced by those of the result: only those it has are compared.
    if (status == 0 && leased_output && reads_whole_output) {
        ResidencyCache::Lease* compared = output_lease->prints().empty() ? nullptr : &*output_lease;
        status = upload(output_lease->device(), whole_output, 0, compared, &output_reused);
    }
    if (status == 0 && queues > 1)
        status = plugin->event_record(context->shared_ready, context->queue[0]);
    for (int64_t p = 0; status == 0 && p < panels; ++p) {
        const int q = static_cast<int>(p % queues);
        if (p >= queues) {  // queue q still holds panel p - queues: deliver it first
            step = "synchronisation";
            if ((status = plugin->event_synchronize(context->panel_done[q])) != 0) break;
            deliver_panel(p - queues);
        }
        if (p == 1 && (status = plugin->event_synchronize(context->shared_ready)) != 0) break;
        step = "upload";
        if (uses_b && !shared_b && !b_kept_whole && !(leased_output && output == Operand::b)) {
            const bool leased = !b_leases.empty();
            if ((status =
                     upload(device_b(p), operand(panel_at(p), Operand::b), q,
                            leased ? &b_leases[p] : nullptr, leased ? &b_reused[p] : nullptr)) != 0)
                break;
        }
        const Matrix out = output_of(p).matrix;
        if (uploads_c && !leased_output && (status = staging.upload(device_c(p, q), out, q)) != 0)
            break;
        step = "BLAS operation";
        if ((status = compute_panel(p, q)) != 0) break;
        step = "download";
        const void* device_out = output == Operand::b ? device_b(p) : device_c(p, q);
        if ((status = staging.download(device_out, out, q)) != 0) break;
        if ((status = plugin->event_record(context->panel_done[q], context->queue[q])) != 0) break;
    }
    if (status == 0) {
        step = "synchronisation";
        status = staging.synchronize_all();
    }
    if (status == 0) {
        for (int64_t p = delivered; p < panels; ++p) deliver_panel(p);
        if (a_lease) a_lease->keep(a_reused != 0);
        for (std::size_t i = 0; i < b_leases.size(); ++i) b_leases[i].keep(b_reused[i] != 0);
        if (b_kept_whole) whole_b_lease->keep(whole_b_reused != 0);
        if (leased_output) {
            output_lease->prints() = output_prints->finish();
            if (reads_whole_output) {
                output_lease->keep(output_reused != 0);
            } else {
                output_lease->keep();
            }
        }
        return Outcome::completed;
    }

    // Nothing may still write into buffers about to be reused; a failed wait may be the
    // first sign of a lost device.
    note_failure_status(*plugin, staging.synchronize_all());
    report_failure(*plugin, step, status);
    if (delivered == 0) return Outcome::failed;
    if (!cpu(rest_of_call(op, axis, width, delivered))) {
        // Unreachable for calls that came in through an entry point of the same integer
        // width; stopping beats returning a result that is partly stale.
        log::write(log::Level::error, "cannot compute a panel on the CPU; stopping");
        std::abort();
    }
    return Outcome::recovered;
}

}  // namespace

Outcome execute_blas3(const Blas3Op& op, CpuPart cpu, Transfers& transfers) {
    const gpushim_device_plugin* plugin = backend();
    if (plugin == nullptr) return Outcome::unavailable;
    // Where the device lacks the room for panels of GPUSHIM_PANEL_BYTES (it is small, or
    // another process or library holds its memory), narrower panels may fit: the width is
    // halved until the call fits, down to kNarrowestPanel columns (or rows): every panel
    // reads all of A on the device, and much narrower ones would make a call the threshold
    // sent to the device slower there than on the CPU. What every panel reads (A, and B of a
    // rank-2k update) must fit whole. One panel on one queue needs what two of half its
    // width need: the narrowing of a single panel quarters it.
    constexpr int64_t kNarrowestPanel = 32;
    const PanelAxis axis = panel_axis(op);
    const int64_t span = panel_span(op, axis);
    const int64_t configured_width = panel_width(op, axis, config().panel_bytes);
    std::size_t needed = 0;
    for (int64_t width = configured_width;;) {
        if (std::optional<Outcome> outcome = execute_in_panels(plugin, op, cpu, transfers, width,
                                                               width < configured_width, needed)) {
            if (width < configured_width)
                log::write(log::Level::debug, "panels of %lld instead of %lld to fit the device",
                           static_cast<long long>(width), static_cast<long long>(configured_width));
            return *outcome;
        }
        if (backend() == nullptr) return Outcome::unavailable;  // the device was lost meanwhile
        const int64_t narrower = width >= span ? (width + 3) / 4 : (width + 1) / 2;
        if (narrower < std::min(kNarrowestPanel, configured_width) || narrower == width) break;
        width = narrower;
    }
    report_does_not_fit(*plugin, "", needed);
    return Outcome::unavailable;
}

}  // namespace gpushim::gpu
