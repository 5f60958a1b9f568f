"""Writing fixture files (shared by the scripts in models/)."""
import os
import tempfile


def save_module(module, path):
    """Saves a TorchScript module to `path` through a temporary file in the same folder, so an
    interrupted run never leaves a truncated fixture."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), suffix=".pt.tmp")
    os.close(fd)
    module.save(tmp)
    os.replace(tmp, path)
