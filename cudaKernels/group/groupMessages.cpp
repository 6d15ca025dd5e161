// SPDX-License-Identifier: GPL-3.0-or-later
// The requests of a group's owner to its ranks as doubles (gpuLdu/rankGroup.hpp): the one place
// that knows their layout.

#include "gpuLdu/rankGroup.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpuLdu
{

namespace
{

//- Every message starts with kind, product, phase
constexpr int headerSize = 3;

//- The result's fields as a done request carries them, in this order
constexpr int resultSize = 10;

void encodeResult(const SolveResult& r, std::vector<double>& message)
{
    message.insert
    (
        message.end(),
        {
            r.initialResidual, r.finalResidual, double(r.nIterations), double(r.converged),
            double(r.singular), double(r.nonFinite), r.uploadSeconds, r.setupSeconds,
            r.iterateSeconds, r.handOverSeconds
        }
    );
}

SolveResult decodeResult(const double* v)
{
    SolveResult r;
    r.initialResidual = v[0];
    r.finalResidual = v[1];
    r.nIterations = int(v[2]);
    r.converged = v[3] != 0;
    r.singular = v[4] != 0;
    r.nonFinite = v[5] != 0;
    r.uploadSeconds = v[6];
    r.setupSeconds = v[7];
    r.iterateSeconds = v[8];
    r.handOverSeconds = v[9];
    return r;
}

[[noreturn]] void notARequest(const std::string& why)
{
    throw std::runtime_error("not a request of the group's owner: " + why);
}

} // namespace


void encodeRequest(const GroupRequest& request, std::vector<double>& message)
{
    message.assign({double(request.kind), double(request.product), double(request.phase)});
    switch (request.kind)
    {
        case GroupRequestKind::sum:
        case GroupRequestKind::maximum:
            message.push_back(request.value);
            break;
        case GroupRequestKind::product:
            if (request.product != InterfaceProduct::rowSums)
            {
                message.insert(message.end(), request.x.begin(), request.x.end());
            }
            message.insert(message.end(), request.y.begin(), request.y.end());
            break;
        case GroupRequestKind::done:
            encodeResult(request.result, message);
            break;
    }
}


GroupRequest decodeRequest(const double* message, int n)
{
    if (n < headerSize)
    {
        notARequest(std::to_string(n) + " values");
    }
    GroupRequest request;
    const int kind = int(message[0]);
    const int product = int(message[1]);
    const int phase = int(message[2]);
    if (kind < 0 || kind > int(GroupRequestKind::maximum) || product < 0
     || product > int(InterfaceProduct::rowSums) || phase < 0 || phase > 1)
    {
        notARequest("kind, product, phase " + std::to_string(kind) + " " + std::to_string(product)
            + " " + std::to_string(phase));
    }
    request.kind = GroupRequestKind(kind);
    request.product = InterfaceProduct(product);
    request.phase = InterfacePhase(phase);
    const double* payload = message + headerSize;
    const int size = n - headerSize;
    switch (request.kind)
    {
        case GroupRequestKind::sum:
        case GroupRequestKind::maximum:
            if (size != 1)
            {
                notARequest("a reduce of " + std::to_string(size) + " values");
            }
            request.value = payload[0];
            break;
        case GroupRequestKind::product:
        {
            // x and y (only y for row sums), as many of each
            const bool hasX = request.product != InterfaceProduct::rowSums;
            if (hasX && size % 2 != 0)
            {
                notARequest("a product of " + std::to_string(size) + " values");
            }
            const int m = hasX ? size/2 : size;
            if (hasX)
            {
                request.x.assign(payload, payload + m);
            }
            request.y.assign(payload + (hasX ? m : 0), payload + size);
            break;
        }
        case GroupRequestKind::done:
            if (size != resultSize)
            {
                notARequest("a result of " + std::to_string(size) + " values");
            }
            request.result = decodeResult(payload);
            break;
    }
    return request;
}


int maxRequestSize(int nHostCells)
{
    return headerSize + std::max(2*nHostCells, resultSize);
}

} // namespace gpuLdu
