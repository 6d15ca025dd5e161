/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduGamgCouplings.H"
#include "GAMGInterface.H"
#include "GAMGInterfaceField.H"

Foam::gpuLduGamgCouplings::gpuLduGamgCouplings
(
    const GAMGAgglomeration& agglomeration,
    const lduMatrix& matrix,
    const FieldField<Field, scalar>& interfaceBouCoeffs,
    const FieldField<Field, scalar>& interfaceIntCoeffs,
    const lduInterfaceFieldPtrsList& interfaces,
    const direction cmpt,
    const labelUList& patchPhase
)
:
    coarseMatrices_(agglomeration.size()),
    primitiveInterfaces_(agglomeration.size()),
    interfaces_(agglomeration.size()),
    bouCoeffs_(agglomeration.size()),
    intCoeffs_(agglomeration.size()),
    couplings_(agglomeration.size() + 1),
    fineInterfaces_(interfaces),
    fineBouCoeffs_(interfaceBouCoeffs),
    fineIntCoeffs_(interfaceIntCoeffs)
{
    couplings_.set
    (
        0,
        new gpuLduCoupling
        (
            matrix, interfaceBouCoeffs, interfaceIntCoeffs, interfaces, cmpt,
            patchPhase
        )
    );

    // Level i coarsens level i into level i + 1 (GAMGSolver's constructor,
    // agglomerateInterfaceCoefficients)
    forAll(agglomeration, i)
    {
        coarsen(agglomeration, i, cmpt, patchPhase);
    }
}


// * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * * //

void Foam::gpuLduGamgCouplings::coarsen
(
    const GAMGAgglomeration& agglomeration,
    const label i,
    const direction cmpt,
    const labelUList& patchPhase
)
{
    const lduInterfaceFieldPtrsList& fineInterfaces =
        i == 0 ? fineInterfaces_ : interfaces_[i - 1];
    const FieldField<Field, scalar>& fineBou =
        i == 0 ? fineBouCoeffs_ : bouCoeffs_[i - 1];
    const FieldField<Field, scalar>& fineInt =
        i == 0 ? fineIntCoeffs_ : intCoeffs_[i - 1];

    const lduInterfacePtrsList& coarseMeshInterfaces =
        agglomeration.interfaceLevel(i + 1);
    const labelListList& patchFineToCoarse =
        agglomeration.patchFaceRestrictAddressing(i);
    const labelList& nPatchFaces = agglomeration.nPatchFaces(i);

    coarseMatrices_.set(i, new lduMatrix(agglomeration.meshLevel(i + 1)));
    primitiveInterfaces_.set
    (
        i,
        new PtrList<lduInterfaceField>(fineInterfaces.size())
    );
    interfaces_.set(i, new lduInterfaceFieldPtrsList(fineInterfaces.size()));
    bouCoeffs_.set(i, new FieldField<Field, scalar>(fineInterfaces.size()));
    intCoeffs_.set(i, new FieldField<Field, scalar>(fineInterfaces.size()));

    forAll(fineInterfaces, inti)
    {
        if (!fineInterfaces.set(inti))
        {
            continue;
        }
        const GAMGInterface& coarseInterface =
            refCast<const GAMGInterface>(coarseMeshInterfaces[inti]);

        primitiveInterfaces_[i].set
        (
            inti,
            GAMGInterfaceField::New
            (
                coarseInterface,
                fineInterfaces[inti]
            ).ptr()
        );
        interfaces_[i].set(inti, &primitiveInterfaces_[i][inti]);

        // Each coarse patch face the sum of its fine faces'
        const auto restrictCoeffs = [&]
        (
            FieldField<Field, scalar>& coarse,
            const FieldField<Field, scalar>& fine
        )
        {
            coarse.set(inti, new scalarField(nPatchFaces[inti], Zero));
            agglomeration.restrictField
            (
                coarse[inti],
                fine[inti],
                patchFineToCoarse[inti]
            );
        };
        restrictCoeffs(bouCoeffs_[i], fineBou);
        restrictCoeffs(intCoeffs_[i], fineInt);
    }

    couplings_.set
    (
        i + 1,
        new gpuLduCoupling
        (
            coarseMatrices_[i], bouCoeffs_[i], intCoeffs_[i],
            interfaces_[i], cmpt, patchPhase
        )
    );
}


// * * * * * * * * * * * * * * * Member Functions  * * * * * * * * * * * * * //

std::vector<const Foam::gpuLduCoupling*>
Foam::gpuLduGamgCouplings::rankCouplings() const
{
    std::vector<const gpuLduCoupling*> c;
    forAll(couplings_, leveli)
    {
        c.push_back(&couplings_[leveli]);
    }
    return c;
}


std::vector<const gpuLdu::Coupling*>
Foam::gpuLduGamgCouplings::couplings() const
{
    const std::vector<const gpuLduCoupling*> c = rankCouplings();
    return std::vector<const gpuLdu::Coupling*>(c.begin(), c.end());
}


std::vector<std::vector<int>> Foam::gpuLduGamgCouplings::cells() const
{
    std::vector<std::vector<int>> c;
    forAll(couplings_, leveli)
    {
        c.push_back(couplings_[leveli].cells());
    }
    return c;
}


const Foam::lduInterfaceFieldPtrsList& Foam::gpuLduGamgCouplings::interfaces
(
    const label k
) const
{
    return k == 0 ? fineInterfaces_ : interfaces_[k - 1];
}


const Foam::FieldField<Foam::Field, Foam::scalar>&
Foam::gpuLduGamgCouplings::interfaceBouCoeffs(const label k) const
{
    return k == 0 ? fineBouCoeffs_ : bouCoeffs_[k - 1];
}


const Foam::FieldField<Foam::Field, Foam::scalar>&
Foam::gpuLduGamgCouplings::interfaceIntCoeffs(const label k) const
{
    return k == 0 ? fineIntCoeffs_ : intCoeffs_[k - 1];
}
