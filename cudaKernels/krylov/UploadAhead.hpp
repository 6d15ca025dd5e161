// SPDX-License-Identifier: GPL-3.0-or-later
// A system's values given to the device ahead of its solve (LduSystem::uploadAhead): a group's
// owner waits for its ranks' values one rank after another; each rank's part goes to the device
// as its message comes, on the stream, while the host waits for the next (the shared values are
// page-locked), so that only the last rank's part is left to copy when the solve starts. This
// keeps count of what came, so that setMatrix and the solve skip their own uploads only where
// every row and face did: a part left out makes them upload all, as without.

#ifndef GPULDU_UPLOADAHEAD_HPP
#define GPULDU_UPLOADAHEAD_HPP

#include "gpuLdu/lduSystem.hpp"

namespace gpuLdu
{

template<class B>
class UploadAhead
{
    //- Rows of psi and source, and rows and faces of the matrix, that came since the last
    //  solve; and whether every matrix part had lower (none: symmetric)
    long rows_ = 0;
    long matrixRows_ = 0;
    long matrixFaces_ = 0;
    bool lower_ = true;
    bool symmetric_ = true;

public:
    //- part's values into a system's arrays on the backend: psi, source, and ldu
    //  ([diag | upper | lower] of n cells and nF faces)
    void give(typename B::Workspace& ws, const ValuesAhead& part, int n, int nF, double* psi,
              double* source, double* ldu)
    {
        ws.uploadAsync(psi + part.cell, part.psi + part.cell, part.nCells);
        ws.uploadAsync(source + part.cell, part.source + part.cell, part.nCells);
        rows_ += part.nCells;
        if (part.matrix == ValuesAhead::Matrix::none)
        {
            return;
        }
        if (part.matrix == ValuesAhead::Matrix::upload)
        {
            ws.uploadAsync(ldu + part.cell, part.diag + part.cell, part.nCells);
            ws.uploadAsync(ldu + n + part.face, part.upper + part.face, part.nFaces);
            if (part.lower)
            {
                ws.uploadAsync(ldu + n + nF + part.face, part.lower + part.face, part.nFaces);
            }
        }
        lower_ = lower_ && part.lower;
        symmetric_ = symmetric_ && !part.lower;
        matrixRows_ += part.nCells;
        matrixFaces_ += part.nFaces;
    }

    //- Whether every value of a setMatrix (n cells, nF faces; lower or symmetric) came, then
    //  none again until more comes
    bool matrixCame(int n, int nF, bool symmetric)
    {
        const bool came = matrixRows_ == n && matrixFaces_ == nF && (symmetric ? symmetric_ : lower_);
        matrixRows_ = matrixFaces_ = 0;
        lower_ = symmetric_ = true;
        return came;
    }

    //- Whether every row of psi and source (n) came; after it, nothing has come (a solve)
    bool valuesCame(int n)
    {
        const bool came = rows_ == n;
        rows_ = 0;
        matrixCame(0, 0, true);
        return came;
    }
};

} // namespace gpuLdu

#endif
