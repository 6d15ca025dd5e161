/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduCoupling.H"
#include "PstreamReduceOps.H"

#include <algorithm>

Foam::gpuLduCoupling::gpuLduCoupling
(
    const lduMatrix& matrix,
    const FieldField<Field, scalar>& interfaceCoeffs,
    const FieldField<Field, scalar>& interfaceIntCoeffs,
    const lduInterfaceFieldPtrsList& interfaces,
    const direction cmpt
)
:
    matrix_(matrix),
    interfaceCoeffs_(interfaceCoeffs),
    interfaceIntCoeffs_(interfaceIntCoeffs),
    interfaces_(interfaces),
    cmpt_(cmpt)
{
    const lduAddressing& addr = matrix.lduAddr();

    forAll(interfaces, patchi)
    {
        if (interfaces.set(patchi))
        {
            const labelUList& faceCells = addr.patchAddr(patchi);
            cells_.insert(cells_.end(), faceCells.begin(), faceCells.end());
        }
    }
    std::sort(cells_.begin(), cells_.end());
    cells_.erase(std::unique(cells_.begin(), cells_.end()), cells_.end());

    if (!cells_.empty())
    {
        psi_.setSize(addr.size(), Zero);
        result_.setSize(addr.size(), Zero);
    }
}


double Foam::gpuLduCoupling::sum(double local) const
{
    return returnReduce
    (
        local,
        sumOp<scalar>(),
        Pstream::msgType(),
        matrix_.mesh().comm()
    );
}


bool Foam::gpuLduCoupling::sumsAreLocal() const
{
    return !Pstream::parRun();
}


std::size_t Foam::gpuLduCoupling::slot(const label celli) const
{
    return std::lower_bound(cells_.begin(), cells_.end(), celli) - cells_.begin();
}


void Foam::gpuLduCoupling::interfaceProduct
(
    const double* xAtCells,
    double* yAtCells
) const
{
    product(interfaceCoeffs_, xAtCells, yAtCells);
}


void Foam::gpuLduCoupling::interfaceProductT
(
    const double* xAtCells,
    double* yAtCells
) const
{
    product(interfaceIntCoeffs_, xAtCells, yAtCells);
}


void Foam::gpuLduCoupling::interfaceRowSums(double* sumAAtCells) const
{
    const lduAddressing& addr = matrix_.lduAddr();

    // sumA[faceCells] -= coeffs, as in lduMatrix::sumA
    forAll(interfaces_, patchi)
    {
        if (interfaces_.set(patchi))
        {
            const labelUList& faceCells = addr.patchAddr(patchi);
            const scalarField& coeffs = interfaceCoeffs_[patchi];
            forAll(faceCells, facei)
            {
                sumAAtCells[slot(faceCells[facei])] -= coeffs[facei];
            }
        }
    }
}


void Foam::gpuLduCoupling::product
(
    const FieldField<Field, scalar>& coeffs,
    const double* xAtCells,
    double* yAtCells
) const
{
    for (std::size_t j = 0; j < cells_.size(); ++j)
    {
        psi_[cells_[j]] = xAtCells[j];
        result_[cells_[j]] = yAtCells[j];
    }

    // result[faceCells] -= coeffs*psi_neighbour, as in lduMatrix::Amul/Tmul
    matrix_.initMatrixInterfaces
    (
        true, coeffs, interfaces_, psi_, result_, cmpt_
    );
    matrix_.updateMatrixInterfaces
    (
        true, coeffs, interfaces_, psi_, result_, cmpt_
    );

    for (std::size_t j = 0; j < cells_.size(); ++j)
    {
        yAtCells[j] = result_[cells_[j]];
    }
}
