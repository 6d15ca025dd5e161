// SPDX-License-Identifier: GPL-3.0-or-later
// y = A x and y = A^T x of a CSR matrix, without interfaces, in the format in use
// (matrix/FormatList.hpp): straight from the CSR arrays, or from a pattern converted once per
// format (matrix/SparseFormats.hpp) and the values gathered into it once per matrix (A^T's
// when a loop first needs them). The products of LduSystemImpl.

#ifndef GPULDU_MATRIXPRODUCTS_HPP
#define GPULDU_MATRIXPRODUCTS_HPP

#include "matrix/CsrMatrix.hpp"
#include "matrix/FormatList.hpp"
#include "matrix/SparseFormats.hpp"
#include "matrix/Spmv.hpp"

#include <map>
#include <memory>

namespace gpuLdu
{

template<class B>
class MatrixProducts
{
    template<class T>
    using Vector = typename B::template Vector<T>;

    using Values = typename FormattedPattern<B>::Values;

    const CsrMatrix<B>& A_;

    //- A^T's values (A's pattern), gathered when a loop first needs A^T x after new values
    Vector<double> valT_;

    //- The format in use, whether it reads the CSR arrays, the patterns converted so far, A's
    //  and A^T's values in the format in use
    MatrixFormat format_;
    bool onCsr_ = true;
    std::map<MatrixFormat, std::unique_ptr<FormattedPattern<B>>> patterns_;
    Values formatted_;
    Values formattedT_;
    bool hasValues_ = false;
    bool formattedTValid_ = false;

    //- The pattern's row lengths (what the automatic format choice looks at)
    RowLengthStats rowLengths_;

    int n() const
    {
        return A_.nRows;
    }

    //- y = (A or A^T) x in the format in use; val: CSR values, formatted: the same in the format
    void spmv(double* y, const double* x, const Vector<double>& val, const Values& formatted) const
    {
        if (onCsr_)
        {
            forEach<B>(0, n(), detail::SpmvRow{ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos), ptr(val), x, y});
        }
        else
        {
            patterns_.at(format_)->spmv(formatted, x, y);
        }
    }

    //- The pattern of a format, converted from CSR on first use
    const FormattedPattern<B>& pattern(MatrixFormat format)
    {
        auto& p = patterns_[format];
        if (!p)
        {
            // each row's terms in OpenFOAM's order: diagonal first, then by ascending column
            Vector<int> termCol(A_.nnz());
            Vector<int> termSrc(A_.nnz());
            forEach<B>(0, n(), detail::DiagonalFirstTerms{ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos), ptr(termCol), ptr(termSrc)});
            try
            {
                p = std::make_unique<FormattedPattern<B>>(format, n(), A_.rowStart, termCol, termSrc);
            }
            catch (...)
            {
                patterns_.erase(format);
                throw;
            }
        }
        return *p;
    }

public:
    //- The products of A (its values taken when valuesChanged says so), in csr
    explicit MatrixProducts(const CsrMatrix<B>& A)
    :
        A_(A),
        format_(FormatRegistry::idOf<formats::Csr>()),
        rowLengths_(gpuLdu::rowLengthStats<B>(A.nRows, A.rowStart))
    {}

    //- A's values (A_.val) are new
    void valuesChanged()
    {
        valT_.clear();
        hasValues_ = true;
        if (!onCsr_)
        {
            pattern(format_).fill(ptr(A_.val), formatted_);
        }
        formattedTValid_ = false;
    }

    //- Use this format from now on; one chosen per matrix (auto) resolves through
    //  chooseFormat. Returns the format in use.
    MatrixFormat setFormat(MatrixFormat format)
    {
        if (isChosenPerMatrix(format))
        {
            format = chooseFormat(rowLengths_);
        }
        if (format != format_)
        {
            const bool onCsr = storageOf(format) == FormatStorage::systemCsr;
            if (!onCsr)
            {
                const FormattedPattern<B>& p = pattern(format);
                if (hasValues_)
                {
                    p.fill(ptr(A_.val), formatted_);
                }
            }
            format_ = format;
            onCsr_ = onCsr;
            formattedTValid_ = false;
            B::synchronize();
        }
        return format_;
    }

    const RowLengthStats& rowLengthStats() const
    {
        return rowLengths_;
    }

    //- y = A x
    void amul(double* y, const double* x) const
    {
        spmv(y, x, A_.val, formatted_);
    }

    //- y = A^T x
    void tmul(double* y, const double* x)
    {
        if (int(valT_.size()) != A_.nnz())
        {
            // A^T has A's pattern: its values are one gather through the transpose index
            valT_.resize(A_.nnz());
            forEach<B>(0, A_.nnz(), detail::Gather<double>{ptr(A_.transpose), ptr(A_.val), ptr(valT_)});
        }
        if (!onCsr_ && !formattedTValid_)
        {
            pattern(format_).fill(ptr(valT_), formattedT_);
            formattedTValid_ = true;
        }
        spmv(y, x, valT_, formattedT_);
    }
};

} // namespace gpuLdu

#endif
