"""How the example scripts write their outputs (HDF5 fields, PNGs): the
rules adi3d itself keeps (docs/BAD_INPUT.md, "Output and checkpoint files").

  * refuse_existing(path, overwrite), before any work: an existing file (an
    earlier result, a user's data) is not replaced without --overwrite.
  * write_new(path, overwrite, write): write(tmp) makes the file on a
    temporary beside it; the temporary takes the name only if the name is
    still free (os.link), or with --overwrite replaces it (os.replace). An
    earlier result is never truncated in place, and a failed or killed write
    leaves no partial file under the name.
"""

import os
import sys
import tempfile


def refuse_existing(path, overwrite):
    if os.path.lexists(path) and not overwrite:
        sys.exit("%s exists: pass --overwrite to replace it, or choose another name; nothing was written" % path)


def write_new(path, overwrite, write):
    refuse_existing(path, overwrite)
    folder = os.path.dirname(os.path.abspath(path))
    # The suffix keeps the extension, from which matplotlib and ParaView pick the format.
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp.", suffix="." + os.path.basename(path))
    os.close(fd)
    try:
        write(tmp)
        if overwrite:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                sys.exit("%s was created by another program meanwhile; it was left as it is, nothing was written"
                         % path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)
