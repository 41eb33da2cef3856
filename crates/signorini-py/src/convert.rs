//! Conversions between Python values and the library's: contact-model parameters, vectors,
//! quaternions, and the (n, k) float64 arrays the state is returned in.
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use signorini::models::ParamInput;
use signorini::{DQuat, DVec3};

/// A contact-model parameter as a scene file writes it: a number (int or float), a word (str) or
/// a list of words. `bool` is refused (it is an int in Python, and no parameter is a flag).
pub fn param(name: &str, value: &Bound<'_, PyAny>) -> PyResult<ParamInput> {
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "parameter `{name}`: give a number, a word or a list of words, not a bool"
        )));
    }
    if value.is_instance_of::<PyString>() {
        return Ok(ParamInput::Word(value.extract::<String>()?));
    }
    if let Ok(v) = value.extract::<f64>() {
        return Ok(ParamInput::Number(v));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        if let Ok(words) = value.extract::<Vec<String>>() {
            return Ok(ParamInput::List(words));
        }
    }
    Err(PyTypeError::new_err(format!(
        "parameter `{name}`: give a number, a word or a list of words, got {}",
        value.get_type().name()?
    )))
}

/// The (name, value) list of a `params` dict (in the dict's order).
pub fn params(params: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, ParamInput)>> {
    let Some(dict) = params else {
        return Ok(Vec::new());
    };
    let mut out = Vec::with_capacity(dict.len());
    for (k, v) in dict.iter() {
        let name: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err("params: parameter names must be str"))?;
        let value = param(&name, &v)?;
        out.push((name, value));
    }
    Ok(out)
}

/// A finite 3-vector from any sequence of 3 numbers (tuple, list, numpy array).
pub fn vec3(what: &str, v: &Bound<'_, PyAny>) -> PyResult<DVec3> {
    let a: [f64; 3] = v.extract().map_err(|_| {
        PyTypeError::new_err(format!("{what}: give a sequence of 3 numbers (x, y, z)"))
    })?;
    let v = DVec3::from_array(a);
    if !v.is_finite() {
        return Err(PyValueError::new_err(format!("{what}: {v} is not finite")));
    }
    Ok(v)
}

/// A quaternion given as (w, x, y, z) (the order of `quaternions` and of trajectory.csv).
pub fn quat_wxyz(what: &str, q: &Bound<'_, PyAny>) -> PyResult<DQuat> {
    let [w, x, y, z]: [f64; 4] = q.extract().map_err(|_| {
        PyTypeError::new_err(format!("{what}: give a sequence of 4 numbers (w, x, y, z)"))
    })?;
    Ok(DQuat::from_xyzw(x, y, z, w))
}

/// An (n, k) float64 array taking ownership of `data` (row-major, n·k values): no second copy.
pub fn array2<'py>(
    py: Python<'py>,
    data: Vec<f64>,
    k: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let n = data.len() / k;
    let a = Array2::from_shape_vec((n, k), data)
        .map_err(|e| PyValueError::new_err(format!("internal: array shape: {e}")))?;
    Ok(a.into_pyarray(py))
}

/// An (n,) array taking ownership of `data`.
pub fn array1<'py, T: numpy::Element>(py: Python<'py>, data: Vec<T>) -> Bound<'py, PyArray1<T>> {
    data.into_pyarray(py)
}

/// The rows of `items` as an (n, 3) array.
pub fn rows3<'py, T>(
    py: Python<'py>,
    items: &[T],
    f: impl Fn(&T) -> DVec3,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let mut data = Vec::with_capacity(3 * items.len());
    for it in items {
        data.extend_from_slice(&f(it).to_array());
    }
    array2(py, data, 3)
}

/// One field of every item: a column of a per-contact array.
pub fn column<T, U>(items: &[T], f: impl Fn(&T) -> U) -> Vec<U> {
    items.iter().map(f).collect()
}

/// A JSON value (a parameter as summary.json writes it) as a Python object: number → float,
/// string → str, list → list, null → None, other → its JSON text.
pub fn json<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use pyo3::IntoPyObjectExt;
    match v {
        serde_json::Value::Null => Ok(py.None().into_bound(py)),
        serde_json::Value::Bool(b) => b.into_bound_py_any(py),
        serde_json::Value::Number(n) => n.as_f64().into_bound_py_any(py),
        serde_json::Value::String(s) => s.into_bound_py_any(py),
        serde_json::Value::Array(items) => {
            let list = PyList::empty(py);
            for it in items {
                list.append(json(py, it)?)?;
            }
            Ok(list.into_any())
        }
        other => other.to_string().into_bound_py_any(py),
    }
}
