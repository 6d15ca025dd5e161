// SPDX-License-Identifier: GPL-3.0-or-later
// The kernels of the sparse LDL^T's solves (LdltImpl.hpp): the forward and backward solves of a
// supernode's front by a team, the division by D, the permutation and scaling between A's order
// and the factor's, and the residual of the refinement with its norm.

#ifndef GPULDU_LDLTSOLVEKERNELS_HPP
#define GPULDU_LDLTSOLVEKERNELS_HPP

#include "direct/LdltFactorKernels.hpp"

namespace gpuLdu
{

namespace detail
{

//- The forward solve L y = y of the front of nodes[t] by a team: its children's update vectors
//  added (children in order), then for each pivot c, y_c final: y_i -= L(i, c) y_c for the rows
//  below, into y for s's own columns and into s's update vector u_s for the rows beyond
template<class T>
struct LdltForwardFront
{
    LdltFronts<T> fronts;
    const long* vectorStart;
    const int* relIndex;
    const int* childStart;
    const int* children;
    const int* nodes;
    T* y;
    T* u;
    //- Only the children's update vectors (the dense part by the BLAS: a long supernode)
    bool childrenOnly;

    template<class Team>
    GPULDU_HD void operator()(int t, const Team& team) const
    {
        const int s = nodes[t];
        const int f = fronts.superFirst[s];
        const int k = fronts.cols(s);
        const int m = fronts.rows(s);
        const T* L = fronts.values + fronts.valueStart[s];
        T* us = u + vectorStart[s];
        for (int i = team.lane(); i < m - k; i += team.size())
        {
            us[i] = 0;
        }
        team.sync();
        for (int q = childStart[s]; q < childStart[s + 1]; ++q)
        {
            const int c = children[q];
            const int w = fronts.rows(c) - fronts.cols(c);
            const T* uc = u + vectorStart[c];
            const int* rel = relIndex + fronts.superRowStart[c] + fronts.cols(c);
            for (int a = team.lane(); a < w; a += team.size())
            {
                const int r = rel[a];
                if (r < k)
                {
                    y[f + r] += uc[a];
                }
                else
                {
                    us[r - k] += uc[a];
                }
            }
            team.sync();
        }
        for (int c = 0; c < k && !childrenOnly; ++c)
        {
            const T yc = y[f + c];
            for (int i = c + 1 + team.lane(); i < m; i += team.size())
            {
                const T v = L[long(c)*m + i]*yc;
                if (i < k)
                {
                    y[f + i] -= v;
                }
                else
                {
                    us[i - k] -= v;
                }
            }
            team.sync();
        }
    }
};

//- z = y / D
template<class T>
struct LdltDiagonal
{
    const T* D;
    T* y;

    GPULDU_HD void operator()(int j) const
    {
        y[j] /= D[j];
    }
};

//- The backward solve L^T w = w of the front of nodes[t] by a team (its ancestors' rows final):
//  w_j -= sum_{i beyond s} L(i, j) w_i for s's columns j, then the block's own rows, last
//  pivot first
template<class T>
struct LdltBackwardFront
{
    LdltFronts<T> fronts;
    const int* superRows;
    const int* nodes;
    T* w;

    template<class Team>
    GPULDU_HD void operator()(int t, const Team& team) const
    {
        const int s = nodes[t];
        const int f = fronts.superFirst[s];
        const int k = fronts.cols(s);
        const int m = fronts.rows(s);
        const T* L = fronts.values + fronts.valueStart[s];
        const int* R = superRows + fronts.superRowStart[s];
        for (int j = team.lane(); j < k; j += team.size())
        {
            T sum = w[f + j];
            for (int i = k; i < m; ++i)
            {
                sum -= L[long(j)*m + i]*w[R[i]];
            }
            w[f + j] = sum;
        }
        team.sync();
        for (int c = k - 1; c > 0; --c)
        {
            const T wc = w[f + c];
            for (int j = team.lane(); j < c; j += team.size())
            {
                w[f + j] -= L[long(j)*m + c]*wc;
            }
            team.sync();
        }
    }
};

//- Between A's order and C's, with the scaling S: to[i] = s[k] from[k] (gather), or
//  to[k] += s[k] from[i] (not gather), k = index[i]
template<class T>
struct LdltPermute
{
    const int* index;
    const double* s;
    const T* from;
    T* to;
    bool gather;

    GPULDU_HD void operator()(int i) const
    {
        const int k = index[i];
        if (gather)
        {
            to[i] = s[k]*from[k];
        }
        else
        {
            to[k] += s[k]*from[i];
        }
    }
};

//- r_i = b_i - (A x)_i, A in full symmetric CSR
template<class T>
struct LdltResidualRow
{
    const int* rowStart;
    const int* col;
    const T* val;
    const T* x;
    const T* b;
    T* r;

    GPULDU_HD void operator()(int i) const
    {
        T s = 0;
        for (int p = rowStart[i]; p < rowStart[i + 1]; ++p)
        {
            s += val[p]*x[col[p]];
        }
        r[i] = b[i] - s;
    }
};

//- |v_i|^2, for the norms
template<class T>
struct SquaredModulus
{
    const T* v;

    GPULDU_HD double operator()(int i) const
    {
        return squaredModulus(v[i]);
    }
};


} // namespace detail

} // namespace gpuLdu

#endif
