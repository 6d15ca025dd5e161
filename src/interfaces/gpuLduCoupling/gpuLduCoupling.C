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
    const direction cmpt,
    const labelUList& patchPhase
)
:
    matrix_(matrix),
    interfaceCoeffs_(interfaceCoeffs),
    interfaceIntCoeffs_(interfaceIntCoeffs),
    interfaces_(interfaces),
    cmpt_(cmpt),
    cellsMade_(false)
{
    for (lduInterfaceFieldPtrsList& list : phaseInterfaces_)
    {
        list.setSize(interfaces.size());
    }
    forAll(interfaces, patchi)
    {
        const label place = patchPhase.empty() ? late : patchPhase[patchi];
        if (interfaces.set(patchi) && place != inSystem)
        {
            phaseInterfaces_[place].set
            (
                patchi,
                gpuLduCompat::pointerAt(interfaces, patchi)
            );
        }
    }
}


double Foam::gpuLduCoupling::sum(const double* partials, int nParts) const
{
    if (nParts != 1)
    {
        FatalErrorInFunction
            << "a rank's coupling sums one partial, not " << nParts
            << abort(FatalError);
    }
    return returnReduce
    (
        partials[0],
        sumOp<scalar>(),
        Pstream::msgType(),
        matrix_.mesh().comm()
    );
}


bool Foam::gpuLduCoupling::sumsAreLocal() const
{
    return !Pstream::parRun();
}


bool Foam::gpuLduCoupling::hasPhase(gpuLdu::InterfacePhase phase) const
{
    const lduInterfaceFieldPtrsList& list = phaseInterfaces_[label(phase)];
    forAll(list, patchi)
    {
        if (list.set(patchi))
        {
            return true;
        }
    }
    return false;
}


const std::vector<int>& Foam::gpuLduCoupling::cells() const
{
    // made at the first use: a GAMG level's coupling of a rank group only
    // hands its coefficients over (its sort was 2.5 ms a solve at 8M)
    if (!cellsMade_)
    {
        const lduAddressing& addr = matrix_.lduAddr();
        forAll(interfaces_, patchi)
        {
            if
            (
                phaseInterfaces_[early].set(patchi)
             || phaseInterfaces_[late].set(patchi)
            )
            {
                const labelUList& faceCells = addr.patchAddr(patchi);
                cells_.insert(cells_.end(), faceCells.begin(), faceCells.end());
            }
        }
        std::sort(cells_.begin(), cells_.end());
        cells_.erase(std::unique(cells_.begin(), cells_.end()), cells_.end());
        cellsMade_ = true;
    }
    return cells_;
}


std::size_t Foam::gpuLduCoupling::slot(const label celli) const
{
    const std::vector<int>& c = cells();
    return std::lower_bound(c.begin(), c.end(), celli) - c.begin();
}


template<class F>
void Foam::gpuLduCoupling::forEachFace
(
    const gpuLdu::InterfacePhase phase,
    const F& f
) const
{
    const lduAddressing& addr = matrix_.lduAddr();
    const lduInterfaceFieldPtrsList& list = phaseInterfaces_[label(phase)];

    forAll(list, patchi)
    {
        if (list.set(patchi))
        {
            const labelUList& faceCells = addr.patchAddr(patchi);
            const scalarField& coeffs = interfaceCoeffs_[patchi];
            forAll(faceCells, facei)
            {
                f(slot(faceCells[facei]), coeffs[facei]);
            }
        }
    }
}


void Foam::gpuLduCoupling::interfaceProduct
(
    gpuLdu::InterfacePhase phase,
    const double* xAtCells,
    double* yAtCells
) const
{
    product(phase, interfaceCoeffs_, true, xAtCells, yAtCells);
}


void Foam::gpuLduCoupling::interfaceProductT
(
    gpuLdu::InterfacePhase phase,
    const double* xAtCells,
    double* yAtCells
) const
{
    product(phase, interfaceIntCoeffs_, true, xAtCells, yAtCells);
}


void Foam::gpuLduCoupling::interfaceResidual
(
    gpuLdu::InterfacePhase phase,
    const double* xAtCells,
    double* yAtCells
) const
{
    product(phase, interfaceCoeffs_, false, xAtCells, yAtCells);
}


void Foam::gpuLduCoupling::interfaceMagnitudes
(
    gpuLdu::InterfacePhase phase,
    double* yAtCells
) const
{
    forEachFace(phase, [&](const std::size_t j, const scalar c)
    {
        yAtCells[j] += mag(c);
    });
}


double Foam::gpuLduCoupling::maximum(double local) const
{
    return returnReduce
    (
        local,
        maxOp<scalar>(),
        Pstream::msgType(),
        matrix_.mesh().comm()
    );
}


void Foam::gpuLduCoupling::interfaceRowSums
(
    gpuLdu::InterfacePhase phase,
    double* sumAAtCells
) const
{
    // sumA[faceCells] -= coeffs, as in lduMatrix::sumA
    forEachFace(phase, [&](const std::size_t j, const scalar c)
    {
        sumAAtCells[j] -= c;
    });
}


void Foam::gpuLduCoupling::product
(
    const gpuLdu::InterfacePhase phase,
    const FieldField<Field, scalar>& coeffs,
    const bool add,
    const double* xAtCells,
    double* yAtCells
) const
{
    // made at the first product: a GAMG level's coupling of a rank group
    // only hands its coefficients over (16 MB a rank a solve at 8M)
    const label nCells = matrix_.lduAddr().size();
    if (psi_.size() != nCells)
    {
        psi_.setSize(nCells, Zero);
        result_.setSize(nCells, Zero);
    }
    const std::vector<int>& c = cells();
    for (std::size_t j = 0; j < c.size(); ++j)
    {
        psi_[c[j]] = xAtCells[j];
        result_[c[j]] = yAtCells[j];
    }

    // result[faceCells] -= coeffs*psi_neighbour, as in lduMatrix::Amul/Tmul
    // (add = false: +=, as in lduMatrix::residual)
    const lduInterfaceFieldPtrsList& list = phaseInterfaces_[label(phase)];
    gpuLduCompat::updateInterfaces
    (
        matrix_, add, coeffs, list, psi_, result_, cmpt_
    );

    for (std::size_t j = 0; j < c.size(); ++j)
    {
        yAtCells[j] = result_[c[j]];
    }
}
