/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later

Description
    The one solve sequence of a group, Krylov and GAMG alike (solveTogether):
    each rank's values to the owner (exchangeValues), the owner's requests
    that the other ranks serve until done (serve), the result and psi back
    (finish), and the owner's time in the hand-over (its debug line). The
    messages are the core's types (gpuLdu/rankGroup.hpp), moved by the
    transport (gpuLduRankGroupTransport.C).

\*---------------------------------------------------------------------------*/

#include "gpuLduRankGroup.H"
#include "gpuLduCoupling.H"
#include "PstreamReduceOps.H"

#include <algorithm>
#include <cstring>
#include <stdexcept>

// * * * * * * * * * * * * * Static Member Functions * * * * * * * * * * * * //

void Foam::gpuLduRankGroup::applyProduct
(
    const gpuLduCoupling& coupling,
    const gpuLdu::InterfaceProduct kind,
    const gpuLdu::InterfacePhase phase,
    const double* x,
    double* y
)
{
    switch (kind)
    {
        case gpuLdu::InterfaceProduct::a:
            coupling.interfaceProduct(phase, x, y);
            break;
        case gpuLdu::InterfaceProduct::transposed:
            coupling.interfaceProductT(phase, x, y);
            break;
        case gpuLdu::InterfaceProduct::rowSums:
            coupling.interfaceRowSums(phase, y);
            break;
        case gpuLdu::InterfaceProduct::residual:
            coupling.interfaceResidual(phase, x, y);
            break;
        case gpuLdu::InterfaceProduct::magnitudes:
            coupling.interfaceMagnitudes(phase, y);
            break;
    }
}


// * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * * //

void Foam::gpuLduRankGroup::changedArrays
(
    const lduMatrix& matrix,
    gpuLdu::RankValues& mine
) const
{
    // bit for bit: a value that compares equal but is not the same bits
    // (-0 and 0) is written
    const auto changed = [](const scalarField& v, const double* at)
    {
        gpuLdu::DoublesView view;
        if (v.size() && std::memcmp(at, v.cdata(), v.byteSize()) != 0)
        {
            view.data = v.cdata();
            view.size = v.size();
        }
        return view;
    };
    mine.diag = changed(matrix.diag(), values_.diag + places_.cell);
    mine.upper = changed(matrix.upper(), values_.upper + places_.face);
    if (matrix.hasLower())
    {
        mine.lower = changed(matrix.lower(), values_.lower + places_.face);
    }
}


gpuLdu::GroupValues Foam::gpuLduRankGroup::groupValues(const bool gamg)
{
    // the shared values, and where the ranks' terms go: the finest level's
    // (a Krylov solve), or every level's (GAMG)
    gpuLdu::GroupValues into = values_;
    into.termBou.assign(1, termCoeffs_.data());
    into.termInt.assign(1, termIntCoeffs_.data());
    into.termDest = &termDest_;
    if (gamg)
    {
        into.levelTermStart = &gamgTermStart_;
        into.termDest = &gamgTermDest_;
        for (label k = 1; k < label(gamgTermStart_.size()); ++k)
        {
            into.termBou.push_back(gamgTermBou_[k].data());
            into.termInt.push_back(gamgTermInt_[k].data());
        }
    }
    return into;
}


void Foam::gpuLduRankGroup::exchangeValues
(
    const lduMatrix& matrix,
    const scalarField& psi,
    const scalarField& source,
    const FieldField<Field, scalar>& interfaceBouCoeffs,
    const FieldField<Field, scalar>& interfaceIntCoeffs,
    const std::vector<double>* levelCoeffs,
    const std::function<void(label, bool)>& ahead
)
{
    const gpuLdu::Stopwatch watch;
    const double arrivedAt = gpuLdu::clockSeconds(watch.started());

    // this rank's coefficients of its patches in the system, patch after patch
    std::vector<double> bou, intc;
    forAll(patchPhase_, patchi)
    {
        if (patchPhase_[patchi] == gpuLduCoupling::inSystem)
        {
            const scalarField& b = interfaceBouCoeffs[patchi];
            const scalarField& i = interfaceIntCoeffs[patchi];
            bou.insert(bou.end(), b.begin(), b.end());
            intc.insert(intc.end(), i.begin(), i.end());
        }
    }

    // this rank's values at its places of the shared values; of diag, upper,
    // lower only those that differ from what is there
    const auto view = [](const double* p, const label n)
    {
        gpuLdu::DoublesView v;
        v.data = p;
        v.size = n;
        return v;
    };
    gpuLdu::RankValues mine;
    mine.arrivedAt = arrivedAt;
    mine.psi = view(psi.cdata(), nCells_);
    mine.source = view(source.cdata(), nCells_);
    changedArrays(matrix, mine);
    mine.interfaceBou = view(bou.data(), nTerms_);
    mine.interfaceInt = view(intc.data(), nTerms_);
    if (levelCoeffs)
    {
        mine.levelCoeffs = view(levelCoeffs->data(), levelCoeffs->size());
    }
    try
    {
        gpuLdu::writeRankValues(mine, places_, values_);
    }
    catch (const std::runtime_error& e)
    {
        FatalErrorInFunction
            << e.what() << abort(FatalError);
    }
    writtenSeconds_ = watch.seconds();

    // the message: which parts are written, GAMG's coarse coefficients
    if (!owner())
    {
        sendValues(mine);
        return;
    }

    // each rank's terms placed as its message comes (receiveValues)
    gpuLdu::GroupValues into = groupValues(levelCoeffs != nullptr);
    receiveValues(mine, into, ahead);
    lastArrivalSeconds_ = watch.seconds();
}


gpuLdu::SolveResult Foam::gpuLduRankGroup::serve
(
    const std::vector<const gpuLduCoupling*>& levels,
    const label meshComm,
    scalarField& psi
)
{
    // (a coarse level's host cells are its agglomerated finest ones: no more)
    std::vector<double> message(gpuLdu::maxRequestSize(nHostCells_));
    for (;;)
    {
        const label n = receiveMessage(0, message);
        gpuLdu::GroupRequest request;
        try
        {
            request = gpuLdu::decodeRequest(message.data(), n);
        }
        catch (const std::runtime_error& e)
        {
            FatalErrorInFunction
                << e.what() << abort(FatalError);
        }

        switch (request.kind)
        {
            // the calls the owner makes (ownerCoupling::sum, maximum) and a
            // rank's own coupling makes (gpuLduCoupling::sum)
            case gpuLdu::GroupRequestKind::sum:
                returnReduce
                (
                    request.value, sumOp<scalar>(), Pstream::msgType(), meshComm
                );
                break;
            case gpuLdu::GroupRequestKind::maximum:
                returnReduce
                (
                    request.value, maxOp<scalar>(), Pstream::msgType(), meshComm
                );
                break;
            case gpuLdu::GroupRequestKind::product:
            {
                // the level's coupling, its host cells as many as y's
                const gpuLduCoupling* coupling =
                    request.level < label(levels.size())
                  ? levels[request.level] : nullptr;
                const std::size_t m = coupling ? coupling->cells().size() : 0;
                const bool hasX = gpuLdu::productTakesX(request.product);
                if
                (
                    !coupling || request.y.size() != m
                 || (hasX && request.x.size() != m)
                )
                {
                    FatalErrorInFunction
                        << "a request of " << n << " values for level "
                        << request.level << " from the group's owner"
                        << abort(FatalError);
                }
                applyProduct
                (
                    *coupling, request.product, request.phase,
                    request.x.data(), request.y.data()
                );
                sendReply(request.y);
                break;
            }
            case gpuLdu::GroupRequestKind::done:
            {
                // psi at this rank's places of the shared values
                const double* mine = values_.psi + places_.cell;
                std::copy(mine, mine + nCells_, psi.begin());
                return request.result;
            }
        }
    }
}


void Foam::gpuLduRankGroup::finish
(
    gpuLdu::SolveResult& r,
    const double handOverSeconds,
    scalarField& psi
)
{
    // done, with the result, to every rank at once; each reads its psi from
    // the shared values
    gpuLdu::GroupRequest done;
    done.kind = gpuLdu::GroupRequestKind::done;
    done.result = r;
    done.result.times.handOver = handOverSeconds;
    doneMessages_.resize(ranks_.size());
    for (std::vector<double>& message : doneMessages_)
    {
        gpuLdu::encodeRequest(done, message);
    }
    sendToEach(doneMessages_);
    std::copy(values_.psi, values_.psi + nCells_, psi.begin());
}


gpuLdu::SolveResult Foam::gpuLduRankGroup::solveTogether
(
    const lduMatrix& matrix,
    const FieldField<Field, scalar>& interfaceBouCoeffs,
    const FieldField<Field, scalar>& interfaceIntCoeffs,
    const std::vector<double>* levelCoeffs,
    const std::vector<const gpuLduCoupling*>& couplings,
    scalarField& psi,
    const scalarField& source,
    const std::function<gpuLdu::SolveResult()>& ownerSolve,
    const std::function<void(label, bool)>& ahead
)
{
    // The owner's hand-over: every rank's values in its buffers, and psi
    // back (finish). It counts from the last rank's coming to it (its
    // arrivedAt) to the values' being complete, and psi back: before that
    // the owner waits for the ranks' own work (their assembly), which
    // native's solve waits for too, at its first reduction
    const gpuLdu::Stopwatch watch;
    exchangeValues
    (
        matrix, psi, source, interfaceBouCoeffs, interfaceIntCoeffs, levelCoeffs,
        ahead
    );
    if (!owner())
    {
        return serve(couplings, matrix.mesh().comm(), psi);
    }
    const double came = gpuLdu::clockSeconds(watch.started());
    const double valuesDone = gpuLdu::clockSeconds(gpuLdu::Clock::now());
    const double waitedSeconds = std::max(0.0, lastArrivedAt_ - came);
    const double valuesSeconds = valuesDone - std::max(lastArrivedAt_, came);

    gpuLdu::SolveResult r = ownerSolve();
    const gpuLdu::Stopwatch backWatch;
    finish(r, valuesSeconds, psi);
    const double backSeconds = backWatch.seconds();
    r.times.handOver = valuesSeconds + backSeconds;

    if (debug)
    {
        Info<< "gpuLduRankGroup: hand-over of " << ranks_.size() << " ranks "
            << 1e3*r.times.handOver << " ms (values " << 1e3*valuesSeconds
            << " ms after the last rank came, psi back " << 1e3*backSeconds
            << " ms; before it the ranks' own work " << 1e3*waitedSeconds
            << " ms; own values written in " << 1e3*writtenSeconds_
            << " ms, the last rank's message after " << 1e3*lastArrivalSeconds_
            << " ms)" << endl;
    }
    return r;
}


// ************************************************************************* //
