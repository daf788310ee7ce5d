def before_form_feed():
    return 1



def after_form_feed():
    return 2
