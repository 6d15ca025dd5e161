// SPDX-License-Identifier: GPL-3.0-or-later
// The host backend: Thrust's sequential CPP system, so that every loop runs in index order and
// every sum is taken in OpenFOAM's order; the executor cpu, and what CI tests.

#ifndef GPULDU_CPUBACKEND_HPP
#define GPULDU_CPUBACKEND_HPP

#include "backend/Backend.hpp"
#include "backend/PartSlots.hpp"

#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/system/cpp/execution_policy.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cfloat>
#include <complex>
#include <cstring>
#include <initializer_list>
#include <utility>
#include <vector>

namespace gpuLdu
{

struct CpuBackend
{
    template<class T>
    using Vector = thrust::host_vector<T>;

    static constexpr Executor executor = Executor::cpu;

    static auto policy()
    {
        return thrust::cpp::par;
    }

    //- f(i) for i in [begin, end), in order
    template<class F>
    static void forEach(int begin, int end, const F& f)
    {
        thrust::for_each(
            policy(),
            thrust::counting_iterator<int>(begin),
            thrust::counting_iterator<int>(end),
            f
        );
    }

    //- A team of one (the host twin of the GPU's BlockTeam), its scratch on the heap
    struct SerialTeam
    {
        double* scratch_ = nullptr;
        GPULDU_HD int lane() const { return 0; }
        GPULDU_HD int size() const { return 1; }
        GPULDU_HD void sync() const {}
        GPULDU_HD double* scratch() const { return scratch_; }
    };

    //- f(i, team) for i in [begin, end), each index a team of one (the team size is the GPU's)
    //  with scratchDoubles of scratch
    template<class F>
    static void forEachTeam(int begin, int end, int team, const F& f, int scratchDoubles = 0)
    {
        (void)team;
        std::vector<double> scratch(scratchDoubles);
        for (int i = begin; i < end; ++i)
        {
            f(i, SerialTeam{scratch.data()});
        }
    }

    //- The scratch a team may ask for (on the host: as much as the GPU's on Hopper)
    static int teamScratchDoubles()
    {
        return 227*1024/int(sizeof(double));
    }

    //- A level-scheduled sweep: f(k) for the positions k of each level, level after level
    template<class Schedule, class F>
    static void sweep(const Schedule& s, const F& f)
    {
        s.sweepByLevel(f);
    }

    template<class T>
    static void upload(T* device, const T* host, std::size_t n)
    {
        if (n)
        {
            std::memcpy(device, host, n*sizeof(T));
        }
    }

    template<class T>
    static void download(T* host, const T* device, std::size_t n)
    {
        if (n)
        {
            std::memcpy(host, device, n*sizeof(T));
        }
    }

    static void synchronize()
    {}

    //- One queue on the host (the GPU backend's side streams: GpuBackend::useSideStream)
    static constexpr int sideStreams = 1;
    static void useSideStream(int)
    {}
    static void useDefaultStream()
    {}

    //- The GPU backend's recorded stream work (GpuBackend::WorkGraph): on the host f runs
    //  each time
    class WorkGraph
    {
    public:
        template<class F>
        void run(bool, const F& f, bool = true)
        {
            f();
        }
    };

    //- Dense blocks (column-major, leading dimensions ld*), for the direct solver's fronts:
    //  C -= A B^T with C m x n, A m x k, B n x k; lowerOnly (m == n): only C's lower triangle
    //  is wanted (the rest may be left as it was or not)
    static void subtractProductNT(int m, int n, int k, const double* A, int lda, const double* B, int ldb,
                                  double* C, int ldc, bool lowerOnly);

    //- X = X L^-T with X m x n and L n x n unit lower triangular (its upper part not read)
    static void solveUnitLowerTransposedRight(int m, int n, const double* L, int ldl, double* X, int ldx);

    //- x = L^-1 x, or L^-T x (transposed), with L n x n unit lower triangular
    static void solveUnitLowerVector(int n, const double* L, int ldl, double* x, bool transposed);

    //- y -= A x with A m x n, or y -= A^T x (transposed: x of m, y of n)
    static void subtractMatrixVector(int m, int n, const double* A, int lda, const double* x, double* y,
                                     bool transposed);

    //- The same for complex values (transposes, not conjugates). Defined through std::complex:
    //  Thrust's complex lives in a namespace that differs between nvcc and g++ (the CUDA tests
    //  call these, compiled by nvcc, from the library compiled by g++)
    static void subtractProductNT(int m, int n, int k, const Complex* A, int lda, const Complex* B, int ldb,
                                  Complex* C, int ldc, bool lowerOnly)
    {
        subtractProductNT(m, n, k, z(A), lda, z(B), ldb, z(C), ldc, lowerOnly);
    }
    static void solveUnitLowerTransposedRight(int m, int n, const Complex* L, int ldl, Complex* X, int ldx)
    {
        solveUnitLowerTransposedRight(m, n, z(L), ldl, z(X), ldx);
    }
    static void solveUnitLowerVector(int n, const Complex* L, int ldl, Complex* x, bool transposed)
    {
        solveUnitLowerVector(n, z(L), ldl, z(x), transposed);
    }
    static void subtractMatrixVector(int m, int n, const Complex* A, int lda, const Complex* x, Complex* y,
                                     bool transposed)
    {
        subtractMatrixVector(m, n, z(A), lda, z(x), z(y), transposed);
    }
    using StdComplex = std::complex<double>;
    static StdComplex* z(Complex* p)
    {
        return reinterpret_cast<StdComplex*>(p);
    }
    static const StdComplex* z(const Complex* p)
    {
        return reinterpret_cast<const StdComplex*>(p);
    }
    static void subtractProductNT(int m, int n, int k, const StdComplex* A, int lda, const StdComplex* B, int ldb,
                                  StdComplex* C, int ldc, bool lowerOnly);
    static void solveUnitLowerTransposedRight(int m, int n, const StdComplex* L, int ldl, StdComplex* X, int ldx);
    static void solveUnitLowerVector(int n, const StdComplex* L, int ldl, StdComplex* x, bool transposed);
    static void subtractMatrixVector(int m, int n, const StdComplex* A, int lda, const StdComplex* x, StdComplex* y,
                                     bool transposed);

    //- The bytes an allocation may take now on this backend
    static double availableMemory();

    //- Per-system state for the repeated work of a solve: the sums part by part and the
    //  scalars they leave (the GPU backend's Workspace, its sums in OpenFOAM's order).
    class Workspace
    {
    public:
        //- The scalars: the loops' (their slots: krylov/VectorOps.hpp), and the last a sum's
        //  on its way to the host
        static constexpr int nScalars = 9;
        static constexpr int hostScalar = nScalars - 1;

    private:
        double scalars_[nScalars] = {};
        //- The parts (setParts), each part's slot, the slots' sums (two passes' worth)
        std::vector<int> starts_;
        std::vector<int> slots_;
        std::vector<double> slotSums_;
        int nSlots_ = 0;

        //- 0 + f(begin) + ... + f(end - 1), left to right: the order of OpenFOAM's sums. A plain
        //  loop, not a transform_reduce per part: GAMG's coarsest level sums its 32 parts of
        //  about 14 rows three times an iteration
        template<class F>
        static double sumRange(int begin, int end, const F& f)
        {
            double s = 0.0;
            for (int i = begin; i < end; ++i)
            {
                s += f(i);
            }
            return s;
        }

        //- Each part's sum of f into its slot of vector j (the others 0)
        template<class F>
        void sumInSlots(const F& f, int j)
        {
            double* sums = slotSums_.data() + std::size_t(j)*std::size_t(nSlots_);
            std::fill(sums, sums + nSlots_, 0.0);
            for (std::size_t p = 0; p < slots_.size(); ++p)
            {
                sums[slots_[p]] = sumRange(starts_[p], starts_[p + 1], f);
            }
        }

    public:
        //- Rows [starts[p], starts[p+1]) are part p, whose sums go to slot slots[p] of nSlots
        //  (the parts of every system that sums with this one, each in one system: their sums
        //  are totalled in slot order)
        void setParts(const std::vector<int>& starts, const std::vector<int>& slots, int nSlots)
        {
            partOfSlots(starts, slots, nSlots);  // the slots checked; the sums index by part
            starts_ = starts;
            slots_ = slots;
            nSlots_ = nSlots;
            slotSums_.assign(2*std::size_t(nSlots), 0.0);
        }

        //- The sums of f over each part into its slot (slotSums(), nSlots() values; 0 in the
        //  slots of no part of this system), each in index order; where total >= 0 also their
        //  total into scalar total, slot order
        template<class F>
        void sumParts(const F& f, int total)
        {
            sumInSlots(f, 0);
            if (total >= 0)
            {
                totalSlots(1, total);
            }
        }

        //- The same for f and for g: f's slot sums, then g's; totals into total and total + 1
        template<class F, class G>
        void sumParts(const F& f, const G& g, int total)
        {
            sumInSlots(f, 0);
            sumInSlots(g, 1);
            if (total >= 0)
            {
                totalSlots(2, total);
            }
        }

        double* slotSums()
        {
            return slotSums_.data();
        }

        int nSlots() const
        {
            return nSlots_;
        }

        //- Scalars [total, total + count) = the totals of count vectors of slot sums, each
        //  0 + slot 0 + slot 1 + ...: OpenFOAM's order where a slot is a rank
        void totalSlots(int count, int total)
        {
            for (int j = 0; j < count; ++j)
            {
                const double* sums = slotSums_.data() + std::size_t(j)*std::size_t(nSlots_);
                scalars_[total + j] = sumRange(0, nSlots_, [sums](int i) { return sums[i]; });
            }
        }

        //- host[p] = sum of f(i) over part p, in index order, for every part
        template<class F>
        void partSums(const F& f, double* host)
        {
            for (std::size_t p = 0; p + 1 < starts_.size(); ++p)
            {
                host[p] = sumRange(starts_[p], starts_[p + 1], f);
            }
        }

        const double* scalars() const
        {
            return scalars_;
        }

        double* scalars()
        {
            return scalars_;
        }

        //- Scalars [first, first + count) to the host
        void fetch(int first, int count, double* host) const
        {
            std::memcpy(host, scalars_ + first, count*sizeof(double));
        }

        void store(int slot, double v)
        {
            scalars_[slot] = v;
        }

        //- Maximum of f(i) over i in [0, n) (-DBL_MAX where n is 0)
        template<class F>
        double maximum(int n, const F& f)
        {
            return thrust::transform_reduce(
                policy(),
                thrust::counting_iterator<int>(0),
                thrust::counting_iterator<int>(n),
                f,
                -DBL_MAX,
                thrust::maximum<double>()
            );
        }

        //- Host arrays (pointer, size), one after another, into device memory from device on.
        using Part = std::pair<const double*, std::size_t>;
        void upload(double* device, std::initializer_list<Part> parts)
        {
            upload(device, parts.begin(), parts.size());
        }
        void upload(double* device, const std::vector<Part>& parts)
        {
            upload(device, parts.data(), parts.size());
        }
        void upload(double* device, const Part* parts, std::size_t nParts)
        {
            for (std::size_t k = 0; k < nParts; ++k)
            {
                CpuBackend::upload(device, parts[k].first, parts[k].second);
                device += parts[k].second;
            }
        }

        //- As upload (the GPU backend's copy the host does not wait for)
        void uploadAsync(double* device, const double* host, std::size_t n)
        {
            CpuBackend::upload(device, host, n);
        }

        void download(double* host, const double* device, std::size_t n)
        {
            CpuBackend::download(host, device, n);
        }
    };
};

} // namespace gpuLdu

#endif
