// SPDX-License-Identifier: GPL-3.0-or-later
// A system's halo (DeviceCouplings::haloSend, nHalo): x across its faces to other systems (a
// group's processor faces to other groups), which its device terms read at columns n and above
// (detail::ApplyCouplings). Exchanged before every application of terms that read x.

#ifndef GPULDU_HALOEXCHANGE_HPP
#define GPULDU_HALOEXCHANGE_HPP

#include "backend/Backend.hpp"
#include "gpuLdu/lduSystem.hpp"

#include <vector>

namespace gpuLdu
{

template<class B>
class HaloExchange
{
    template<class T>
    using Vector = typename B::template Vector<T>;

    //- The cells sent, then [sent | received] on the backend and on the host
    Vector<int> send_;
    Vector<double> values_;
    std::vector<double> host_;
    int nHalo_ = 0;

public:
    //- The pattern of a system's device couplings (their cells checked by the system)
    void set(const DeviceCouplings& c)
    {
        nHalo_ = c.nHalo;
        send_.resize(c.haloSend.size());
        B::upload(ptr(send_), c.haloSend.data(), c.haloSend.size());
        values_.resize(c.haloSend.size() + std::size_t(nHalo_));
        host_.assign(c.haloSend.size() + std::size_t(nHalo_), 0.0);
    }

    int size() const
    {
        return nHalo_;
    }

    //- The halo's values on the backend (nHalo)
    const double* values() const
    {
        return ptr(values_) + send_.size();
    }

    //- The halo for x (on the backend): x at the cells sent, exchanged on the backend where the
    //  coupling can (GPU: the owners' NCCL, stream-ordered), else through the host to the
    //  coupling's exchange and the values across back (one copy each way)
    void exchange(const double* x, const Coupling& coupling, typename B::Workspace& ws)
    {
        const std::size_t nSend = send_.size();
        double* sent = ptr(values_);
        forEach<B>(0, int(nSend), detail::Gather<double>{ptr(send_), x, sent});
        if (coupling.exchangesOnBackend(B::executor))
        {
            coupling.exchangeHaloOnBackend(sent, sent + nSend);
            return;
        }
        ws.download(host_.data(), sent, nSend);
        coupling.exchangeHalo(host_.data(), host_.data() + nSend);
        ws.upload(sent + nSend, {{host_.data() + nSend, std::size_t(nHalo_)}});
    }
};

} // namespace gpuLdu

#endif
