/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduKeywords.H"
#include "gpuLduCache.H"
#include "gpuLduCompat.H"
#include "OStringStream.H"
#include "gpuLdu/gpuLdu.hpp"

#include <string>
#include <vector>

// * * * * * * * * * * * * * * Static Data Members * * * * * * * * * * * * * //

const Foam::wordList Foam::gpuLduKeywords::common
{
    "solver", "tolerance", "relTol", "maxIter", "minIter", "preconditioner",
    "smoother", "nSweeps", "type"
};


// * * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * //

void Foam::gpuLduKeywords::warnUnread
(
    const dictionary& dict,
    const wordList& valid,
    const word& fieldName,
    const word& solverType
)
{
    std::vector<std::string> names;
    OStringStream list;
    for (const word& w : valid)
    {
        names.push_back(w);
        list<< " " << w;
    }
    for (const entry& e : dict)
    {
        const word& key = e.keyword();
        if (gpuLduCompat::contains(valid, key))
        {
            continue;
        }
        // the closest valid keyword, where the key looks like a slip of it
        const std::string closest = gpuLdu::closestKeyword(key, names);
        OStringStream hint;
        if (!closest.empty())
        {
            hint<< "    Did you mean " << closest.c_str() << "?" << nl;
        }
        IOWarningInFunction(dict)
            << "Keyword " << key << " for field " << fieldName
            << " is read by neither " << solverType << " nor OpenFOAM:"
            << " it has no effect." << nl
            << hint.str().c_str()
            << "    Valid keywords:" << list.str().c_str() << endl;
    }
}


// * * * * * * * * * * * * * Static Member Functions * * * * * * * * * * * * //

void Foam::gpuLduKeywords::check
(
    gpuLduCache& cache,
    const word& fieldName,
    const word& solverType,
    const dictionary& controls,
    const wordList& own
)
{
    // p and pFinal are two dictionaries of one field
    const word dictName
    (
        controls.name().empty() ? string(fieldName) : string(controls.name()),
        false
    );
    if (!cache.noteKeywordCheck(dictName, solverType))
    {
        return;
    }

    wordList valid(common);
    valid.append(gpuLduCompat::solverKeywords());
    valid.append(own);
    warnUnread(controls, valid, fieldName, solverType);

    // The sub-dictionary forms: preconditioner { preconditioner DIC; }
    for (const word name : {"preconditioner", "smoother"})
    {
        if (controls.isDict(name))
        {
            warnUnread
            (
                controls.subDict(name), wordList{name}, fieldName, solverType
            );
        }
    }
}


// ************************************************************************* //
