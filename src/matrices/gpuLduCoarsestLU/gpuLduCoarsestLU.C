/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduCoarsestLU.H"

#include <algorithm>

// * * * * * * * * * * * * * * * * Constructors  * * * * * * * * * * * * * * //

Foam::gpuLduCoarsestLU::gpuLduCoarsestLU
(
    const lduMesh& mesh,
    const FieldField<Field, scalar>& interfaceBouCoeffs,
    const lduInterfaceFieldPtrsList& interfaces
)
:
    matrix_(mesh),
    interfaceBouCoeffs_(interfaceBouCoeffs),
    interfaces_(interfaces),
    psi_(mesh.lduAddr().size()),
    source_(mesh.lduAddr().size())
{}


Foam::gpuLduCombinedCoarsestLU::gpuLduCombinedCoarsestLU
(
    const gpuLdu::CombinedLevel& coarsest
)
:
    nCells_(coarsest.nCells()),
    lower_(coarsest.lower),
    upper_(coarsest.upper),
    terms_(coarsest.couplings),
    termCoeffs_(nullptr),
    x_(coarsest.nCells())
{}


// * * * * * * * * * * * * * * * Member Functions  * * * * * * * * * * * * * //

void Foam::gpuLduCoarsestLU::setMatrix
(
    const double* diag,
    const double* upper,
    const double* lower
)
{
    const label n = matrix_.lduAddr().size();
    const label nFaces = matrix_.lduAddr().lowerAddr().size();
    scalarField& d = matrix_.diag(n);
    std::copy(diag, diag + n, d.begin());
    scalarField& u = matrix_.upper(nFaces);
    std::copy(upper, upper + nFaces, u.begin());
    if (lower)
    {
        scalarField& l = matrix_.lower(nFaces);
        std::copy(lower, lower + nFaces, l.begin());
    }
    lu_.reset(new LUscalarMatrix(matrix_, interfaceBouCoeffs_, interfaces_));
}


void Foam::gpuLduCoarsestLU::solve(const double* source, double* psi)
{
    std::copy(source, source + source_.size(), source_.begin());
    lu_->solve(psi_, source_);
    std::copy(psi_.begin(), psi_.end(), psi);
}


void Foam::gpuLduCombinedCoarsestLU::assemble
(
    const double* diag,
    const double* upper,
    const double* lower
)
{
    scalarSquareMatrix m(nCells_, Zero);
    for (label cell = 0; cell < nCells_; ++cell)
    {
        m[cell][cell] = diag[cell];
    }
    // the ranks' faces, rank after rank (LUscalarMatrix::convert)
    for (label face = 0; face < label(lower_.size()); ++face)
    {
        m[upper_[face]][lower_[face]] = lower[face];
        m[lower_[face]][upper_[face]] = upper[face];
    }
    // the processor faces: term (r, c, a) to A[c][r]
    const std::vector<double>& coeffs = *termCoeffs_;
    for (label r = 0; r + 1 < label(terms_.start.size()); ++r)
    {
        for (label t = terms_.start[r]; t < terms_.start[r + 1]; ++t)
        {
            m[terms_.cols[t]][terms_.rows[r]] -= coeffs[t];
        }
    }
    lu_.transfer(m);
}


void Foam::gpuLduCombinedCoarsestLU::setMatrix
(
    const double* diag,
    const double* upper,
    const double* lower
)
{
    if (!termCoeffs_ || label(termCoeffs_->size()) != terms_.nTerms())
    {
        FatalErrorInFunction
            << "the coarsest level's processor-face coefficients are not set"
            << " (" << terms_.nTerms() << " terms)" << abort(FatalError);
    }
    const label nFaces = lower_.size();
    const double* l = lower ? lower : upper;
    std::vector<double> values(diag, diag + nCells_);
    values.insert(values.end(), upper, upper + nFaces);
    values.insert(values.end(), l, l + nFaces);
    values.insert(values.end(), termCoeffs_->begin(), termCoeffs_->end());
    if (values == decomposed_)
    {
        return;
    }
    decomposed_.clear();
    assemble(diag, upper, l);
    pivots_.setSize(nCells_);
    LUDecompose(lu_, pivots_);
    decomposed_ = std::move(values);
}


void Foam::gpuLduCombinedCoarsestLU::solve(const double* source, double* psi)
{
    std::copy(source, source + nCells_, x_.begin());
    LUBacksubstitute(lu_, pivots_, x_);
    std::copy(x_.begin(), x_.end(), psi);
}


// ************************************************************************* //
