"""PyTorch's CUDA device played by the CPU: a rehearsal of the GPU check's device columns.

On PYTHONPATH (PYTHONPATH=bench/torch_on_cpu), every Python that starts without LD_PRELOAD
imports torch and takes torch.device("cuda") for the CPU, with the torch.cuda calls the
device columns of bench/gemm_compare.py, factor_compare.py and fft_device_limit.py make
answered as a one-device machine would. Their code then runs, checks included, on a
machine without a GPU: the numbers mean nothing, the records and tables are what a GPU run
will write. The other Pythons without the shim (the OpenBLAS columns, the tables) import
torch too, its OpenMP runtime with it; torch.device becomes a function, so code that tests
isinstance(x, torch.device) breaks. A rehearsal only, never a measurement; see
docs/gpu-results.md.
"""
import os

if "LD_PRELOAD" not in os.environ:
    import torch

    _torch_device = torch.device
    _cpu = _torch_device("cpu")

    def _device(*args, **kwargs):
        if args and isinstance(args[0], str) and args[0].startswith("cuda"):
            return _cpu
        return _torch_device(*args, **kwargs)

    _torch_empty = torch.empty

    def _empty(*args, **kwargs):
        kwargs.pop("pin_memory", None)  # pinning needs a CUDA driver
        return _torch_empty(*args, **kwargs)

    torch.device = _device
    torch.empty = _empty
    torch.cuda.is_available = lambda: True
    torch.cuda.synchronize = lambda *args, **kwargs: None
    torch.cuda.get_device_name = lambda *args, **kwargs: "the CPU, standing in for a GPU"
    torch.cuda.empty_cache = lambda: None
