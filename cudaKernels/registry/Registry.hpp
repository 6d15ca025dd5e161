// SPDX-License-Identifier: GPL-3.0-or-later
// The registry of a kind of choice with behaviour, generated from one type list: the
// preconditioners (precond/PreconditionerList.hpp), the GAMG smoothers (multigrid/
// SmootherList.hpp), the Krylov methods (krylov/KrylovMethodList.hpp), the matrix formats
// (matrix/FormatList.hpp), the LDL^T orderings (direct/OrderingList.hpp). Each entry of a list
// is a class that carries, in its own file:
//   static constexpr Variant variants[]   its keywords: each one choice, with the matrices
//                                         OpenFOAM's run-time tables take it on and an alias
//                                         of the same arithmetic (FDIC for DIC)
//   static constexpr bool openFOAMs       whether OpenFOAM has it (checkNative, exactness);
//                                         an entry without it is not OpenFOAM's
// and whatever its kind asks of it (its implementation on a backend, its loop, its storage, its
// permutation: the list's header says what). A choice (gpuLdu::Preconditioner, KrylovMethod,
// ...: a RegisteredChoice) is an index into the list's variants, entries in list order; every
// name table, listing and trait query of the kind is made here from the list, and
// Registry::visit takes a choice to its entry (a host-side switch, once per set-up, apply,
// sweep or solve: nothing virtual in a kernel).

#ifndef GPULDU_REGISTRY_HPP
#define GPULDU_REGISTRY_HPP

#include "gpuLdu/gpuLdu.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

namespace gpuLdu
{

//- The matrices a keyword is registered for, as in OpenFOAM's run-time tables (symMatrix,
//  asymMatrix constructor tables)
enum class Takes
{
    both,
    symmetric,
    asymmetric
};

//- One choice of a registered class: its keyword, the matrices it is taken on, and an alias
//  (another keyword for the same arithmetic) or nullptr
struct Variant
{
    const char* name;
    Takes takes;
    const char* alias;
};

template<class... Entries>
struct TypeList
{};

//- How a registry lists its keywords (names, and the "valid ... are :" of an unknown one)
enum class Listing
{
    //- As OpenFOAM lists a run-time table (sortedToc: OpenFOAM's own in byte order), then the
    //  plugin's own in list order: preconditioners, smoothers
    openFOAMsSortedFirst,
    //- In list order: the kinds OpenFOAM has no table of (formats, orderings) and the Krylov
    //  methods, listed as OpenFOAM's documentation lists them (PCG PBiCG PBiCGStab)
    inListOrder
};

//- Entry::openFOAMs where the entry says it, else false
template<class Entry, class = void>
struct OpenFOAMsOf : std::false_type
{};

template<class Entry>
struct OpenFOAMsOf<Entry, std::void_t<decltype(Entry::openFOAMs)>> : std::bool_constant<Entry::openFOAMs>
{};

//- Whether a and b hold the same characters (a static_assert on an entry's keyword)
constexpr bool sameKeyword(const char* a, const char* b)
{
    return *a == *b && (*a == '\0' || sameKeyword(a + 1, b + 1));
}

template<class First, class...>
struct FirstOf
{
    using type = First;
};

//- Whether a keyword registered for `takes` is taken on a symmetric (or asymmetric) matrix
inline bool takenOn(Takes takes, bool symmetric)
{
    return takes == Takes::both || (takes == Takes::symmetric) == symmetric;
}

template<class List, Listing listing = Listing::openFOAMsSortedFirst>
class Registry;

template<class... Entries, Listing listing>
class Registry<TypeList<Entries...>, listing>
{
public:
    //- The first entry: its first variant is the choices' default (id 0)
    using First = typename FirstOf<Entries...>::type;

    //- One choice: its entry's place in the list, its variant, whether it is OpenFOAM's
    struct Choice
    {
        int entry;
        const Variant* variant;
        bool openFOAMs;
    };

    //- Every choice: the entries in list order, each one's variants in its order
    static const std::vector<Choice>& choices()
    {
        static const std::vector<Choice> all = []
        {
            std::vector<Choice> c;
            int entry = 0;
            (addChoices<Entries>(c, entry++), ...);
            return c;
        }();
        return all;
    }

    //- The place of Entry in the list
    template<class Entry>
    static constexpr int indexOf()
    {
        int i = 0;
        int found = -1;
        ((found = std::is_same<Entry, Entries>::value ? i : found, ++i), ...);
        return found;
    }

    //- The choice of Entry's first keyword
    template<class Entry>
    static int idOf()
    {
        const std::vector<Choice>& all = choices();
        for (std::size_t id = 0; id < all.size(); ++id)
        {
            if (all[id].entry == indexOf<Entry>())
            {
                return int(id);
            }
        }
        return -1;
    }

    //- The choice of Entry's variant registered for a symmetric (or an asymmetric) matrix: its
    //  first that takes it (Entry with one DIC-like and one DILU-like variant: the one the
    //  matrix's table holds, as OpenFOAM picks by the matrix); -1 where none does
    template<class Entry>
    static int idFor(bool symmetric)
    {
        const std::vector<Choice>& all = choices();
        for (std::size_t id = 0; id < all.size(); ++id)
        {
            if (all[id].entry == indexOf<Entry>() && takenOn(all[id].variant->takes, symmetric))
            {
                return int(id);
            }
        }
        return -1;
    }

    //- Whether choice id is one of Entry's
    template<class Entry>
    static bool is(int id)
    {
        return choices()[id].entry == indexOf<Entry>();
    }

    //- f(Entry()) for the entry of choice id
    template<class F>
    static void visit(int id, const F& f)
    {
        const int entry = choices()[id].entry;
        int i = 0;
        ((i++ == entry ? f(Entries()) : void()), ...);
    }

    static bool openFOAMs(int id)
    {
        return choices()[id].openFOAMs;
    }

    static std::string name(int id)
    {
        return choices()[id].variant->name;
    }

    //- The keywords of the choices that pass keep(const Variant&), listed as `listing` says
    //  (openFOAMsSortedFirst: OpenFOAM's own in byte order, then the plugin's own in list
    //  order; inListOrder: all in list order)
    template<class Keep>
    static std::vector<std::string> names(const Keep& keep)
    {
        std::vector<std::string> openFOAMs;
        std::vector<std::string> own;
        for (const Choice& c : choices())
        {
            if (keep(*c.variant))
            {
                const bool sortedPart = listing == Listing::openFOAMsSortedFirst && c.openFOAMs;
                std::vector<std::string>& to = sortedPart ? openFOAMs : own;
                to.push_back(c.variant->name);
                if (c.variant->alias)
                {
                    to.push_back(c.variant->alias);
                }
            }
        }
        std::sort(openFOAMs.begin(), openFOAMs.end());
        openFOAMs.insert(openFOAMs.end(), own.begin(), own.end());
        return openFOAMs;
    }

    //- The choice of a keyword (a name or an alias) among those that pass keep; Error naming
    //  the valid keywords otherwise ("Unknown <what> <name>; valid <what>s are : ...")
    template<class Keep>
    static int fromName(const std::string& name, const std::string& what, const Keep& keep)
    {
        const std::vector<Choice>& all = choices();
        for (std::size_t id = 0; id < all.size(); ++id)
        {
            const Variant& v = *all[id].variant;
            if (keep(v) && (name == v.name || (v.alias && name == v.alias)))
            {
                return int(id);
            }
        }
        std::string valid;
        for (const std::string& n : names(keep))
        {
            valid += (valid.empty() ? "" : " ") + n;
        }
        throw Error("Unknown " + what + " " + name + "; valid " + what + "s are : " + valid);
    }

private:
    template<class Entry>
    static void addChoices(std::vector<Choice>& c, int entry)
    {
        for (const Variant& v : Entry::variants)
        {
            c.push_back(Choice{entry, &v, OpenFOAMsOf<Entry>::value});
        }
    }
};

} // namespace gpuLdu

#endif
