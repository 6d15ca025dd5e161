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

    sumACorrection_.assign(cells_.size(), 0.0);
    forAll(interfaces, patchi)
    {
        if (interfaces.set(patchi))
        {
            const labelUList& faceCells = addr.patchAddr(patchi);
            const scalarField& coeffs = interfaceCoeffs[patchi];
            forAll(faceCells, facei)
            {
                const auto pos = std::lower_bound
                (
                    cells_.begin(), cells_.end(), faceCells[facei]
                );
                sumACorrection_[pos - cells_.begin()] -= coeffs[facei];
            }
        }
    }

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


void Foam::gpuLduCoupling::interfaceProduct
(
    const double* xAtCells,
    double* result
) const
{
    product(interfaceCoeffs_, xAtCells, result);
}


void Foam::gpuLduCoupling::interfaceProductT
(
    const double* xAtCells,
    double* result
) const
{
    product(interfaceIntCoeffs_, xAtCells, result);
}


void Foam::gpuLduCoupling::product
(
    const FieldField<Field, scalar>& coeffs,
    const double* xAtCells,
    double* result
) const
{
    for (std::size_t j = 0; j < cells_.size(); ++j)
    {
        psi_[cells_[j]] = xAtCells[j];
        result_[cells_[j]] = 0;
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
        result[j] = result_[cells_[j]];
    }
}
